package dev.fencepost.bench;

import dev.fencepost.launcher.LocalTls;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Set;

/** The machine's floors: what no lock on this machine can beat. */
public final class Floors {

  private Floors() {}

  /** F1: a 32-byte TCP echo on loopback, Nagle off, one thread per connection. */
  public static LockTarget loopback() {
    return new LockTarget.Described(
        "F1", "loopback TCP echo, 32 bytes, TCP_NODELAY", Store.NONE, Set.of(Op.FLOOR)) {
      private final ServerSocket server = open();
      private final Thread acceptor = startAcceptor(server);

      @Override
      public Client client(int index) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
        socket.setTcpNoDelay(true);
        OutputStream out = socket.getOutputStream();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] message = new byte[32];
        return new Client() {
          @Override
          public void floor() throws IOException {
            out.write(message);
            in.readFully(message);
          }

          @Override
          public void close() throws IOException {
            socket.close();
          }
        };
      }

      @Override
      public void close() throws IOException {
        server.close();
        acceptor.interrupt();
      }
    };
  }

  private static ServerSocket open() {
    try {
      return new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Thread startAcceptor(ServerSocket server) {
    Thread acceptor =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try {
                  Socket s = server.accept();
                  s.setTcpNoDelay(true);
                  Thread echo =
                      new Thread(
                          () -> {
                            byte[] buffer = new byte[32];
                            try (s;
                                InputStream in = s.getInputStream();
                                OutputStream out = s.getOutputStream()) {
                              int n;
                              while ((n = in.read(buffer)) > 0) {
                                out.write(buffer, 0, n);
                              }
                            } catch (IOException ignored) {
                              // client went away
                            }
                          },
                          "bench-echo");
                  echo.setDaemon(true);
                  echo.start();
                } catch (IOException e) {
                  return;
                }
              }
            },
            "bench-echo-accept");
    acceptor.setDaemon(true);
    acceptor.start();
    return acceptor;
  }

  /** F2: write 64 bytes and fdatasync (FileChannel.force(false)) on the stores' filesystem. */
  public static LockTarget fdatasync(Path directory) {
    return new LockTarget.Described(
        "F2",
        "64-byte write + fdatasync (FileChannel.force(false)) in " + directory,
        Store.NONE,
        Set.of(Op.FLOOR)) {

      @Override
      public Client client(int index) throws IOException {
        Files.createDirectories(directory);
        Path file = directory.resolve("fsync-" + index + ".dat");
        FileChannel channel =
            FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
        ByteBuffer buffer = ByteBuffer.allocate(64);
        return new Client() {
          long n;

          @Override
          public void floor() throws IOException {
            buffer.clear();
            buffer.putLong(0, n++);
            channel.write(buffer, 0);
            channel.force(false);
          }

          @Override
          public void close() throws IOException {
            channel.close();
            Files.deleteIfExists(file);
          }
        };
      }
    };
  }

  /**
   * F3: a no-op request ({@code GET /actuator/health/liveness}, no backend call) to the lock
   * server's management port, the same JVM and Tomcat as its API, sent the way the starter sends
   * its requests (a kept-alive HTTP/1.1 connection, TCP_NODELAY, one write per request; see {@link
   * PlainHttp}).
   */
  public static LockTarget httpNoop(String managementUrl, String which) {
    return new LockTarget.Described(
        "F3",
        "no-op HTTP: GET /actuator/health/liveness on the lock server ("
            + which
            + "), sent as the starter sends (kept-alive HTTP/1.1, TCP_NODELAY)",
        Store.NONE,
        Set.of(Op.FLOOR)) {

      @Override
      public Client client(int index) {
        PlainHttp http = new PlainHttp(managementUrl);
        return new Client() {
          @Override
          public void floor() throws Exception {
            int status = http.send("GET", "/actuator/health/liveness", null);
            if (status != 200) {
              throw new IllegalStateException("liveness answered " + status);
            }
          }

          @Override
          public void close() {
            http.close();
          }
        };
      }
    };
  }

  /**
   * F4: the same no-op request through the JDK {@code HttpClient}, which the starter used until ADR
   * 0092; kept so the cost of that client's thread hand-offs stays visible next to F3.
   */
  public static LockTarget httpNoopJdk(String managementUrl, String which) {
    URI uri = URI.create(managementUrl + "/actuator/health/liveness");
    return new LockTarget.Described(
        "F4",
        "the same no-op HTTP request through the JDK HttpClient (HTTP/1.1) (" + which + ")",
        Store.NONE,
        Set.of(Op.FLOOR)) {

      @Override
      public Client client(int index) {
        HttpClient client =
            HttpClient.newBuilder()
                .sslContext(LocalTls.forThisJvm().sslContext())
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build();
        return new Client() {
          @Override
          public void floor() throws Exception {
            HttpResponse<Void> r = client.send(request, HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() != 200) {
              throw new IllegalStateException("liveness answered " + r.statusCode());
            }
          }
        };
      }
    };
  }
}
