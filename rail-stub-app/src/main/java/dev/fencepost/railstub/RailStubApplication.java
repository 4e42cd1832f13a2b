package dev.fencepost.railstub;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * Entry point of the rail stub (port 8083 by default).
 *
 * <p>Configured by {@code rail-stub.yaml} ({@value #CONFIG_NAME}), and {@code
 * rail-stub-realistic.yaml} with the {@code realistic} profile; not {@code application.yaml}: in a
 * JVM that hosts other applications too each one reads its own file and never another's.
 */
// The stub has no database. Where JDBC is on the class path for another application sharing the
// JVM (tests, the local platform), Boot must not try to build one for the stub.
@SpringBootApplication(
    excludeName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration"
    })
@ConfigurationPropertiesScan
public class RailStubApplication {

  /** The stub's {@code spring.config.name}: it reads {@code rail-stub.yaml}. */
  public static final String CONFIG_NAME = "rail-stub";

  /** The stub as {@code main} starts it; tests and launchers start it the same way. */
  public static SpringApplicationBuilder application() {
    return new SpringApplicationBuilder(RailStubApplication.class)
        .properties("spring.config.name=" + CONFIG_NAME);
  }

  public static void main(String[] args) {
    application().run(args);
  }
}
