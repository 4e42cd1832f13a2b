package dev.fencepost.web;

import java.io.IOException;
import java.io.Writer;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.http.HttpStatusCode;

/**
 * Tomcat rejects some requests before Spring sees them (a malformed percent-encoding, an encoded
 * NUL in the path). Its default answer is an HTML page; this valve answers those with the same
 * problem+json shape and stable code as every other error ({@link Problems#codeFor}).
 */
public final class ProblemJsonErrorReportValve extends ErrorReportValve {

  @Override
  protected void report(Request request, Response response, Throwable throwable) {
    int status = response.getStatus();
    if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
      return;
    }
    String code = Problems.codeFor(HttpStatusCode.valueOf(status));
    try {
      response.setContentType("application/problem+json");
      response.setCharacterEncoding("UTF-8");
      Writer writer = response.getReporter();
      if (writer != null) {
        writer.write(body(status, code, "request rejected by the HTTP server"));
      }
    } catch (IOException | IllegalStateException e) {
      // The response is already committed or the client went away; nothing more to say.
    }
  }

  /**
   * A minimal problem; {@code detail} is a constant of ours, never request content, so plain
   * concatenation is safe JSON.
   */
  static String body(int status, String code, String detail) {
    return "{\"type\":\""
        + Problems.typeOf(code)
        + "\",\"status\":"
        + status
        + ",\"detail\":\""
        + detail
        + "\",\"code\":\""
        + code
        + "\"}";
  }
}
