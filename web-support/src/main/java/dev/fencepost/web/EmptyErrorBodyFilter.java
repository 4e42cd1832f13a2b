package dev.fencepost.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * An error answered with a status and no body gets the problem+json every other error has. The
 * actuator answers some refusals so, and no exception handler sees them: a read operation that
 * finds nothing is a bare 404 (an unknown metric, an unknown health group, a metric tag that
 * matches nothing). Registered on a separate management port ({@link
 * ManagementRequestBodyLimitConfiguration}); an answer that has a content type, or is already on
 * its way, is left as it is.
 */
public final class EmptyErrorBodyFilter extends OncePerRequestFilter {

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    chain.doFilter(request, response);
    int status = response.getStatus();
    if (status >= 400
        && !response.isCommitted()
        && response.getContentType() == null
        && !request.isAsyncStarted()) {
      response.setContentType("application/problem+json");
      response.setCharacterEncoding("UTF-8");
      response
          .getWriter()
          .write(
              ProblemJsonErrorReportValve.body(
                  status,
                  Problems.codeFor(HttpStatusCode.valueOf(status)),
                  "the endpoint answered " + status + " without a body"));
    }
  }
}
