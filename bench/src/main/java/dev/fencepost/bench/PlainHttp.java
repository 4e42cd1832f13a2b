package dev.fencepost.bench;

import dev.fencepost.launcher.LocalTls;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLSocket;

/**
 * One kept-alive HTTP/1.1 connection with TCP_NODELAY, one write per request, the answer read on
 * the caller's thread: the way the starter's own transport talked to the lock server (ADR 0092; ADR
 * 0197 moves the starter to Apache HttpClient 5, which keeps those properties), for the calls the
 * bench makes outside the starter (the no-op floor F3, renew, inspect), with the bench's bearer
 * token as the starter sends it. Not thread safe: one per client. Reconnects when the server closes
 * the connection between requests.
 */
final class PlainHttp implements AutoCloseable {

  private final String host;
  private final int port;
  private final boolean tls;
  private Socket socket;
  private InputStream in;
  private OutputStream out;

  PlainHttp(String baseUrl) {
    URI uri = URI.create(baseUrl);
    this.host = uri.getHost();
    this.port = uri.getPort();
    this.tls = "https".equals(uri.getScheme());
  }

  /** Sends the request and returns the status; the body is read and discarded. */
  int send(String method, String path, String jsonBody) throws IOException {
    byte[] body = jsonBody == null ? new byte[0] : jsonBody.getBytes(StandardCharsets.UTF_8);
    String head =
        method
            + " "
            + path
            + " HTTP/1.1\r\nHost: "
            + host
            + ":"
            + port
            + "\r\nAccept: application/json\r\nAuthorization: "
            + BenchIdentity.authorization()
            + "\r\n"
            + (jsonBody == null
                ? ""
                : "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n")
            + "\r\n";
    byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
    byte[] request = new byte[h.length + body.length];
    System.arraycopy(h, 0, request, 0, h.length);
    System.arraycopy(body, 0, request, h.length, body.length);
    boolean fresh = socket == null;
    if (fresh) {
      connect();
    }
    try {
      return exchange(request);
    } catch (EOFException e) {
      if (fresh) {
        throw e;
      }
      // The server closed the idle connection before this request: a new one, once.
      close();
      connect();
      return exchange(request);
    }
  }

  private void connect() throws IOException {
    socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(10_000);
    socket.connect(new InetSocketAddress(host, port), 2_000);
    if (tls) {
      // The services serve HTTPS (ADR 0150): TLS over the connected socket, the certificate
      // verified against the run's CA and the host name, as any client of the run does.
      SSLSocket secured =
          (SSLSocket)
              LocalTls.forThisJvm()
                  .sslContext()
                  .getSocketFactory()
                  .createSocket(socket, host, port, true);
      var parameters = secured.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      secured.setSSLParameters(parameters);
      secured.startHandshake();
      socket = secured;
    }
    in = new BufferedInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  private int exchange(byte[] request) throws IOException {
    out.write(request);
    out.flush();
    String status = line();
    if (status == null) {
      throw new EOFException("closed before a response");
    }
    int code = Integer.parseInt(status.split(" ", 3)[1]);
    long length = -1;
    boolean chunked = false;
    boolean close = false;
    for (String l = line(); l != null && !l.isEmpty(); l = line()) {
      String lower = l.toLowerCase(java.util.Locale.ROOT);
      if (lower.startsWith("content-length:")) {
        length = Long.parseLong(l.substring(15).trim());
      } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
        chunked = true;
      } else if (lower.startsWith("connection:") && lower.contains("close")) {
        close = true;
      }
    }
    if (chunked) {
      while (true) {
        String size = line();
        int n = Integer.parseInt(size.split(";")[0].trim(), 16);
        in.readNBytes(n);
        line();
        if (n == 0) {
          break;
        }
      }
    } else if (length > 0) {
      in.readNBytes((int) length);
    }
    if (close) {
      close();
    }
    return code;
  }

  private String line() throws IOException {
    StringBuilder sb = new StringBuilder(64);
    while (true) {
      int b = in.read();
      if (b < 0) {
        if (sb.length() == 0) {
          return null;
        }
        throw new EOFException("closed inside a line");
      }
      if (b == '\n') {
        int end = sb.length();
        if (end > 0 && sb.charAt(end - 1) == '\r') {
          sb.setLength(end - 1);
        }
        return sb.toString();
      }
      sb.append((char) b);
    }
  }

  @Override
  public void close() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing
      }
      socket = null;
    }
  }
}
