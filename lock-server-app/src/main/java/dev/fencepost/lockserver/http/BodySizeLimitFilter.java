package dev.fencepost.lockserver.http;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses bodies over the configured limit with 413 {@code PAYLOAD_TOO_LARGE} before anything
 * parses them, whether the client declared a Content-Length or streamed chunks. Bodies of this API
 * are a few hundred bytes, so buffering up to the limit costs nothing.
 */
final class BodySizeLimitFilter extends OncePerRequestFilter {

  private final long maxBytes;

  BodySizeLimitFilter(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (request.getContentLengthLong() > maxBytes) {
      reject(response);
      return;
    }
    String method = request.getMethod();
    if (!"POST".equals(method) && !"PUT".equals(method) && !"PATCH".equals(method)) {
      chain.doFilter(request, response);
      return;
    }
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    try (InputStream in = request.getInputStream()) {
      byte[] chunk = new byte[4096];
      int n;
      while ((n = in.read(chunk)) != -1) {
        buffer.write(chunk, 0, n);
        if (buffer.size() > maxBytes) {
          reject(response);
          return;
        }
      }
    }
    chain.doFilter(new BufferedBodyRequest(request, buffer.toByteArray()), response);
  }

  private static void reject(HttpServletResponse response) throws IOException {
    response.setStatus(413);
    response.setContentType("application/problem+json");
    response.setHeader("Connection", "close");
    response
        .getWriter()
        .write(
            "{\"type\":\"https://fencepost.dev/problems/payload_too_large\",\"title\":\"Content Too"
                + " Large\",\"status\":413,\"detail\":\"request body exceeds the configured"
                + " limit\",\"code\":\"PAYLOAD_TOO_LARGE\"}");
  }

  private static final class BufferedBodyRequest extends HttpServletRequestWrapper {
    private final byte[] body;

    BufferedBodyRequest(HttpServletRequest request, byte[] body) {
      super(request);
      this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
      ByteArrayInputStream in = new ByteArrayInputStream(body);
      return new ServletInputStream() {
        @Override
        public int read() {
          return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
          return in.read(b, off, len);
        }

        @Override
        public boolean isFinished() {
          return in.available() == 0;
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          throw new IllegalStateException("synchronous reads only");
        }
      };
    }

    @Override
    public BufferedReader getReader() {
      return new BufferedReader(
          new InputStreamReader(new ByteArrayInputStream(body), StandardCharsets.UTF_8));
    }

    @Override
    public int getContentLength() {
      return body.length;
    }

    @Override
    public long getContentLengthLong() {
      return body.length;
    }
  }
}
