package dev.fencepost.lock.client.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * A loopback TCP proxy in front of the lock server that a test can stall: while stalled, it keeps
 * every connection open and accepts new ones but forwards no byte in either direction, so the
 * client's requests neither fail fast nor get an answer. That is what a client sees from a server
 * behind a dead network path, and what the server sees from a client whose process is frozen (a
 * stop-the-world pause): its heartbeats simply stop arriving.
 */
public final class StallableTcpProxy implements AutoCloseable {

  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile CountDownLatch gate;
  private volatile boolean closed;

  public StallableTcpProxy(int targetPort) {
    this.targetPort = targetPort;
    try {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread acceptor = new Thread(this::acceptLoop, "stallable-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  /** From now on, no byte passes in either direction until {@link #resume()}. */
  public void stall() {
    if (gate == null) {
      gate = new CountDownLatch(1);
    }
  }

  /** Lets bytes flow again, including those held back while stalled. */
  public void resume() {
    CountDownLatch open = gate;
    gate = null;
    if (open != null) {
      open.countDown();
    }
  }

  @Override
  public void close() {
    closed = true;
    resume();
    try {
      server.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(client);
        sockets.add(upstream);
        pump(client, upstream, "stallable-proxy-up");
        pump(upstream, client, "stallable-proxy-down");
      } catch (IOException e) {
        if (!closed) {
          // The upstream refused: drop this connection, keep accepting.
          continue;
        }
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, String name) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                  CountDownLatch stalled = gate;
                  if (stalled != null) {
                    stalled.await();
                  }
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException | InterruptedException e) {
                // connection closed by one side or by close()
              } finally {
                try {
                  from.close();
                  to.close();
                } catch (IOException ignored) {
                  // closing anyway
                }
              }
            },
            name);
    thread.setDaemon(true);
    thread.start();
  }
}
