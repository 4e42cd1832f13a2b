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

  /** The server as {@code main} starts it; tests and launchers start it the same way. */
  public static SpringApplicationBuilder application() {
    return new SpringApplicationBuilder(LockServerApplication.class)
        .properties("spring.config.name=" + CONFIG_NAME);
  }

  public static void main(String[] args) {
    application().run(args);
  }
}
