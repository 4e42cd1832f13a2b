package dev.fencepost.lock.client.impl;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP/1.1 peer on 127.0.0.1 that answers each request it receives with the next scripted
 * reply, byte for byte, and counts what it saw: connections accepted, requests received (with the
 * connection each came on), connections the client closed and connections it closed itself. The
 * bytes are written raw so that a test can send what a well-behaved server never would.
 */
final class ScriptedHttpServer implements AutoCloseable {

  /** One request as it arrived. */
  record Received(int connection, String requestLine, List<String> headers, byte[] body) {
    /** The values of every header line with this name, in order. */
    List<String> header(String name) {
      List<String> values = new ArrayList<>();
      for (String h : headers) {
        int colon = h.indexOf(':');
        if (colon > 0 && h.substring(0, colon).trim().equalsIgnoreCase(name)) {
          values.add(h.substring(colon + 1).trim());
        }
      }
      return values;
    }
  }

  /** What to do with one request: write these bytes (or nothing), then keep or close. */
  record Reply(byte[] bytes, boolean closeAfter, boolean silent) {
    static Reply raw(String text) {
      return new Reply(text.getBytes(StandardCharsets.ISO_8859_1), false, false);
    }

    static Reply raw(byte[] bytes) {
      return new Reply(bytes, false, false);
    }

    static Reply ok(String body) {
      return raw(
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
              + body.getBytes(StandardCharsets.UTF_8).length
              + "\r\n\r\n"
              + body);
    }

    /** Never answers: the connection stays open until the client gives up on it. */
    static Reply silence() {
      return new Reply(new byte[0], false, true);
    }

    Reply thenClose() {
      return new Reply(bytes, true, silent);
    }
  }

  private final ServerSocket server;
  private final BlockingQueue<Reply> script = new LinkedBlockingQueue<>();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  final List<Received> received = new CopyOnWriteArrayList<>();
  final AtomicInteger accepted = new AtomicInteger();
  final AtomicInteger closedByClient = new AtomicInteger();
  final AtomicInteger closedByServer = new AtomicInteger();

  ScriptedHttpServer() throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "scripted-http-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + server.getLocalPort() + pathAndQuery);
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  int port() {
    return server.getLocalPort();
  }

  ScriptedHttpServer then(Reply reply) {
    script.add(reply);
    return this;
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket socket;
      try {
        socket = server.accept();
      } catch (IOException e) {
        return;
      }
      int connection = accepted.incrementAndGet();
      sockets.add(socket);
      Thread handler = new Thread(() -> serve(socket, connection), "scripted-http-" + connection);
      handler.setDaemon(true);
      handler.start();
    }
  }

  private void serve(Socket socket, int connection) {
    try (socket) {
      InputStream in = new BufferedInputStream(socket.getInputStream());
      OutputStream out = socket.getOutputStream();
      while (true) {
        Received request = readRequest(in, connection);
        if (request == null) {
          closedByClient.incrementAndGet();
          return;
        }
        received.add(request);
        Reply reply = script.poll(30, TimeUnit.SECONDS);
        if (reply == null) {
          return;
        }
        if (!reply.silent()) {
          out.write(reply.bytes());
          out.flush();
        }
        if (reply.closeAfter()) {
          socket.close();
          closedByServer.incrementAndGet();
          return;
        }
      }
    } catch (IOException e) {
      // The client reset the connection: it closed it as far as this server can tell.
      closedByClient.incrementAndGet();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Received readRequest(InputStream in, int connection) throws IOException {
    String requestLine = line(in);
    if (requestLine == null) {
      return null;
    }
    List<String> headers = new ArrayList<>();
    int length = 0;
    for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
      headers.add(h);
      if (h.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(h.substring("content-length:".length()).trim());
      }
    }
    byte[] body = in.readNBytes(length);
    return new Received(connection, requestLine, List.copyOf(headers), body);
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); ; b = in.read()) {
      if (b < 0) {
        return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
      }
      if (b == '\n') {
        String s = line.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
      }
      line.write(b);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }
}
