package dev.fencepost.lockserver.http;

import java.io.IOException;
import java.io.Writer;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;

/**
 * Tomcat rejects some requests before Spring sees them (a malformed percent-encoding, an encoded
 * NUL in the path). Its default answer is an HTML page; this valve answers those with the same
 * problem+json shape and stable code as every other error of the API.
 */
public final class ProblemJsonErrorReportValve extends ErrorReportValve {

  @Override
  protected void report(Request request, Response response, Throwable throwable) {
    int status = response.getStatus();
    if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
      return;
    }
    String code =
        status == 400 ? "INVALID_REQUEST" : status < 500 ? "HTTP_" + status : "INTERNAL_ERROR";
    try {
      response.setContentType("application/problem+json");
      response.setCharacterEncoding("UTF-8");
      Writer writer = response.getReporter();
      if (writer != null) {
        writer.write(
            "{\"type\":\"https://fencepost.dev/problems/"
                + code.toLowerCase()
                + "\",\"status\":"
                + status
                + ",\"detail\":\"request rejected by the HTTP server\",\"code\":\""
                + code
                + "\"}");
      }
    } catch (IOException | IllegalStateException e) {
      // The response is already committed or the client went away; nothing more to say.
    }
  }
}
