package dev.fencepost.railproxy;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * Entry point of the rail proxy (port 8082). Run it with {@code --spring.datasource.url=} for
 * proxydb and {@code --fencepost.rail.base-url=} for the rail; Liquibase applies proxydb at start.
 *
 * <p>Configured by {@code rail-proxy.yaml} ({@value #CONFIG_NAME}), not {@code application.yaml}:
 * in a JVM that hosts other applications too each one reads its own file and never another's.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class RailProxyApplication {

  /** The proxy's {@code spring.config.name}: it reads {@code rail-proxy.yaml}. */
  public static final String CONFIG_NAME = "rail-proxy";

  /** The proxy as {@code main} starts it; tests and launchers start it the same way. */
  public static SpringApplicationBuilder application() {
    return new SpringApplicationBuilder(RailProxyApplication.class)
        .properties("spring.config.name=" + CONFIG_NAME);
  }

  public static void main(String[] args) {
    application().run(args);
  }
}
