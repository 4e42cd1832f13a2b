package dev.fencepost.railproxy;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * Entry point of the rail proxy (port 8082). Run it with {@code --spring.datasource.url=} for
 * proxydb and {@code --fencepost.rail.base-url=} for the rail; Liquibase applies proxydb at start.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class RailProxyApplication {

  public static void main(String[] args) {
    SpringApplication.run(RailProxyApplication.class, args);
  }
}
