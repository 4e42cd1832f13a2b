package dev.fencepost.launcher.process;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A stand-in service for {@link JavaProcessTest}: listens on {@code --server.port} and answers
 * {@code GET /actuator/health} on {@code --management.server.port}, as a Spring Boot service does.
 * With {@code --fail-first=<file>} it exits with code 3 unless the file exists, creating it, so its
 * first start fails and the next one serves.
 */
public final class HealthServerMain {

  public static void main(String[] args) throws Exception {
    int port = 0;
    int managementPort = 0;
    Path failFirst = null;
    for (String arg : args) {
      if (arg.startsWith("--server.port=")) {
        port = Integer.parseInt(arg.substring("--server.port=".length()));
      } else if (arg.startsWith("--management.server.port=")) {
        managementPort = Integer.parseInt(arg.substring("--management.server.port=".length()));
      } else if (arg.startsWith("--fail-first=")) {
        failFirst = Path.of(arg.substring("--fail-first=".length()));
      }
    }
    if (failFirst != null && !Files.exists(failFirst)) {
      Files.writeString(failFirst, "failed once\n");
      System.out.println("failing on purpose");
      System.exit(3);
    }
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
    server.start();
    HttpServer management =
        HttpServer.create(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), managementPort), 16);
    management.createContext(
        "/actuator/health",
        exchange -> {
          byte[] body = "{\"status\":\"UP\"}".getBytes();
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    management.start();
    System.out.println("serving on " + port);
  }
}
