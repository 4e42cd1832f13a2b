package dev.fencepost.lockserver;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;

/**
 * The Fencepost lock server: a stateless HTTP front over a lock backend (PostgreSQL or etcd). Any
 * number of instances against one backend behave as one service.
 *
 * <p>Configured by {@code lock-server.yaml} ({@value #CONFIG_NAME}), not {@code application.yaml}:
 * in a JVM that hosts other applications too (tests, the local platform) each one reads its own
 * file and never another's.
 */
// Each backend wires its own store: an etcd-backed server must start without any database.
@SpringBootApplication(
    exclude = {DataSourceAutoConfiguration.class, LiquibaseAutoConfiguration.class})
public class LockServerApplication {

  /** The server's {@code spring.config.name}: it reads {@code lock-server.yaml}. */
  public static final String CONFIG_NAME = "lock-server";

  /**
   * Bytes of each of the three buffers Tomcat gives every WebSocket connection of this JVM, here
   * every keepalive stream (ADR 0226): its default, 8 KiB, is for messages of kilobytes, and a
   * stream carries frames of a few digits and answers of a few hundred bytes. Longer messages still
   * pass, in more than one frame or read.
   */
  public static final int WEBSOCKET_BUFFER_BYTES = 512;

  /** The JVM-wide system property Tomcat sizes those buffers from. */
  public static final String WEBSOCKET_BUFFER_PROPERTY =
      "org.apache.tomcat.websocket.DEFAULT_BUFFER_SIZE";

  /** The server as {@code main} starts it; tests and launchers start it the same way. */
  public static SpringApplicationBuilder application() {
    // Tomcat reads the property once, when its WebSocket classes load, which is when the first
    // embedded Tomcat of the JVM starts: so it is set before this server starts, and never over
    // a value the operator gave the JVM. The server logs the size in effect when it starts.
    if (System.getProperty(WEBSOCKET_BUFFER_PROPERTY) == null) {
      System.setProperty(WEBSOCKET_BUFFER_PROPERTY, Integer.toString(WEBSOCKET_BUFFER_BYTES));
    }
    return new SpringApplicationBuilder(LockServerApplication.class)
        .properties("spring.config.name=" + CONFIG_NAME);
  }

  public static void main(String[] args) {
    application().run(args);
  }
}
