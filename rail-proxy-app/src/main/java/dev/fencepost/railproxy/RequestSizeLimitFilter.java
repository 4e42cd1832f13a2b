package dev.fencepost.railproxy;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Bounds every request body (bad input is a 4xx, never a 5xx or an exhausted heap). A declared
 * Content-Length over the limit is refused before reading; a chunked body is counted as it is read
 * and fails with {@link PayloadTooLargeException}, which {@link ProblemAdvice} turns into a 413.
 */
final class RequestSizeLimitFilter extends OncePerRequestFilter {

  private final long limitBytes;
  private final ProblemAdvice problems;

  RequestSizeLimitFilter(long limitBytes, ProblemAdvice problems) {
    this.limitBytes = limitBytes;
    this.problems = problems;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (request.getContentLengthLong() > limitBytes) {
      problems.writePayloadTooLarge(request, response, limitBytes);
      return;
    }
    chain.doFilter(new Bounded(request, limitBytes), response);
  }

  private static final class Bounded extends HttpServletRequestWrapper {

    private final long limit;
    private ServletInputStream stream;

    Bounded(HttpServletRequest request, long limit) {
      super(request);
      this.limit = limit;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        stream = new CountingStream(super.getInputStream(), limit);
      }
      return stream;
    }
  }

  private static final class CountingStream extends ServletInputStream {

    private final ServletInputStream delegate;
    private final long limit;
    private long count;

    CountingStream(ServletInputStream delegate, long limit) {
      this.delegate = delegate;
      this.limit = limit;
    }

    @Override
    public int read() throws IOException {
      int b = delegate.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = delegate.read(buffer, offset, length);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(int n) throws PayloadTooLargeException {
      count += n;
      if (count > limit) {
        throw new PayloadTooLargeException(limit);
      }
    }

    @Override
    public boolean isFinished() {
      return delegate.isFinished();
    }

    @Override
    public boolean isReady() {
      return delegate.isReady();
    }

    @Override
    public void setReadListener(ReadListener listener) {
      delegate.setReadListener(listener);
    }
  }
}
