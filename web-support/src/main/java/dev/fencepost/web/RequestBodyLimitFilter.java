package dev.fencepost.web;

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
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses a request body over the limit with 413 {@code PAYLOAD_TOO_LARGE} before anything parses
 * it, on every path of the application, its actuator endpoints included: a declared Content-Length
 * over the limit is refused unread, a chunked body is read up to the limit and refused as soon as
 * it passes it (a form's body is left to Tomcat, bounded by its declared length here and by
 * Tomcat's {@code max-post-size}). Fencepost's bodies are a few hundred bytes, so holding one up to
 * the limit costs nothing, and the application then reads it from memory. Registered by {@link
 * ProblemJsonAutoConfiguration} with {@code fencepost.web.max-request-body-size}; an application
 * with a limit of its own registers this filter under the bean name {@value #BEAN_NAME}.
 */
public final class RequestBodyLimitFilter extends OncePerRequestFilter {

  /** The bean name of the filter's registration: an application's own one replaces the default. */
  public static final String BEAN_NAME = "requestBodyLimitFilter";

  private final long maxBytes;
  private final ProblemJsonExceptionHandler problems;

  /**
   * @param maxBytes the largest body accepted
   * @param problems where a refusal is reported ({@code http.request.rejected}, and whatever the
   *     application's subclass counts); null reports nothing
   */
  public RequestBodyLimitFilter(long maxBytes, ProblemJsonExceptionHandler problems) {
    this.maxBytes = maxBytes;
    this.problems = problems;
  }

  /** The largest body this filter accepts, in bytes. */
  public long maxBytes() {
    return maxBytes;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    long declared = request.getContentLengthLong();
    if (declared > maxBytes) {
      reject(request, response);
      return;
    }
    if (declared == 0
        || (declared < 0 && request.getHeader("Transfer-Encoding") == null)
        || isForm(request)) {
      // A form's parameters are parsed by Tomcat from its own input, which a buffered copy would
      // leave empty; a form is bounded by its declared length here and by Tomcat's max-post-size.
      chain.doFilter(request, response);
      return;
    }
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    InputStream in = request.getInputStream();
    byte[] chunk = new byte[4096];
    int n;
    while ((n = in.read(chunk)) != -1) {
      buffer.write(chunk, 0, n);
      if (buffer.size() > maxBytes) {
        reject(request, response);
        return;
      }
    }
    chain.doFilter(new BufferedBodyRequest(request, buffer.toByteArray()), response);
  }

  private static boolean isForm(HttpServletRequest request) {
    String type = request.getContentType();
    return type != null
        && (type.regionMatches(true, 0, "application/x-www-form-urlencoded", 0, 33)
            || type.regionMatches(true, 0, "multipart/", 0, 10));
  }

  private void reject(HttpServletRequest request, HttpServletResponse response) throws IOException {
    ProblemDetail problem =
        Problems.of(
            HttpStatus.CONTENT_TOO_LARGE,
            "PAYLOAD_TOO_LARGE",
            "request body exceeds the limit of " + maxBytes + " bytes");
    if (problems != null) {
      problems.rejected(problem, new ServletWebRequest(request));
    }
    response.setStatus(problem.getStatus());
    response.setContentType("application/problem+json");
    response.setCharacterEncoding("UTF-8");
    // The rest of the body is not worth draining: make sure the connection is not reused.
    response.setHeader("Connection", "close");
    // No request content goes into the answer, so plain concatenation is safe JSON.
    response
        .getWriter()
        .write(
            "{\"type\":\""
                + problem.getType()
                + "\",\"title\":\""
                + problem.getTitle()
                + "\",\"status\":"
                + problem.getStatus()
                + ",\"detail\":\""
                + problem.getDetail()
                + "\",\"code\":\"PAYLOAD_TOO_LARGE\"}");
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
      String encoding = getCharacterEncoding();
      Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
      return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), charset));
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
