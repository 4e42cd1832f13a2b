package dev.fencepost.railstub;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;
import org.apache.coyote.ActionCode;

/**
 * Lets a handler drop the connection without answering, which the servlet API cannot express. The
 * handler marks the request with {@link #abort(HttpServletRequest)} and writes nothing; after the
 * servlet returns, this valve asks Tomcat to close the socket now ({@link ActionCode#CLOSE_NOW}),
 * which also discards whatever response Tomcat would otherwise have committed. The caller sees the
 * connection end with no status line: an EOF, or a reset if unread bytes remain in the socket.
 */
public final class AbortConnectionValve extends ValveBase {

  private static final String ABORT = AbortConnectionValve.class.getName() + ".abort";

  public AbortConnectionValve() {
    super(true);
  }

  /** Marks the current request so that its connection is dropped instead of answered. */
  public static void abort(HttpServletRequest request) {
    request.setAttribute(ABORT, Boolean.TRUE);
  }

  @Override
  public void invoke(Request request, Response response) throws IOException, ServletException {
    getNext().invoke(request, response);
    if (Boolean.TRUE.equals(request.getAttribute(ABORT))) {
      response.getCoyoteResponse().action(ActionCode.CLOSE_NOW, null);
    }
  }
}
