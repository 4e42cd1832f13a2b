package dev.fencepost.lock.client.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.springframework.core.env.Environment;

/** The owner a client declares when none is configured: {@code application@host:pid}. */
final class DefaultOwner {

  private DefaultOwner() {}

  static String of(Environment environment) {
    String application = environment.getProperty("spring.application.name", "fencepost-client");
    String owner = application + "@" + host() + ":" + ProcessHandle.current().pid();
    return owner.length() > 200 ? owner.substring(0, 200) : owner;
  }

  private static String host() {
    String host = System.getenv("HOSTNAME");
    if (host != null && !host.isBlank()) {
      return host;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown-host";
    }
  }
}
