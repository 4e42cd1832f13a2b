package dev.fencepost.testsupport.network;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * A TCP proxy on a loopback port in front of a server (netcrusher) that can go silent: {@link
 * #swallow()} stops forwarding in both directions and accepting, without closing or resetting
 * anything, as a cut cable or a dropped route does. Neither side learns that the other is gone: a
 * client's FIN is not passed on either, so the server keeps its session (and its transaction) until
 * a timeout of its own ends it.
 */
public final class BlackHole implements AutoCloseable {

  private final NioReactor reactor;
  private final TcpCrusher crusher;
  private final int port;

  private BlackHole(NioReactor reactor, TcpCrusher crusher, int port) {
    this.reactor = reactor;
    this.crusher = crusher;
    this.port = port;
  }

  /** A proxy on a free loopback port that forwards to {@code 127.0.0.1:targetPort}. */
  public static BlackHole inFrontOf(int targetPort) {
    try {
      NioReactor reactor = new NioReactor();
      int port = freePort();
      TcpCrusher crusher =
          TcpCrusherBuilder.builder()
              .withReactor(reactor)
              .withBindAddress("127.0.0.1", port)
              .withConnectAddress("127.0.0.1", targetPort)
              .buildAndOpen();
      return new BlackHole(reactor, crusher, port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The loopback port clients connect to instead of the server's. */
  public int port() {
    return port;
  }

  /** Stops forwarding and accepting; bytes in flight stay where they are. */
  public void swallow() {
    crusher.freeze();
  }

  /** Forwards again, including whatever was held back. */
  public void restore() {
    crusher.unfreeze();
  }

  @Override
  public void close() {
    crusher.close();
    reactor.close();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
