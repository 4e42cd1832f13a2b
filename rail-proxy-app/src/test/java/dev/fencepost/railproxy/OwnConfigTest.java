package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringApplicationRunListener;
import org.springframework.boot.bootstrap.ConfigurableBootstrapContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The rail proxy started as {@code main} starts it reads {@code rail-proxy.yaml}, by the config
 * name it sets itself, and nothing of the rail stub's {@code rail-stub.yaml}, which is on this test
 * class path too.
 */
class OwnConfigTest {

  @Test
  void startedAsMainStartsItTheProxyReadsRailProxyYamlAndNotTheStubs() {
    assertThat(getClass().getResource("/rail-stub.yaml")).as("the stub's file is here").isNotNull();

    ConfigurableEnvironment environment = environmentOf(RailProxyApplication.application());

    assertThat(environment.getProperty("spring.config.name")).isEqualTo("rail-proxy");
    assertThat(environment.getProperty("spring.application.name")).isEqualTo("rail-proxy");
    assertThat(environment.getProperty("server.port")).isEqualTo("8082");
    assertThat(environment.getProperty("spring.liquibase.change-log"))
        .isEqualTo("classpath:db/changelog/proxydb/db.changelog-master.yaml");
    assertThat(environment.getProperty("fencepost.stub.seed")).isNull();
  }

  @Test
  void aCommandLineArgumentStillOverridesItsFile() {
    ConfigurableEnvironment environment =
        environmentOf(RailProxyApplication.application(), "--server.port=18082");

    assertThat(environment.getProperty("server.port")).isEqualTo("18082");
  }

  /** The environment {@code application} would run with; the start stops before any bean. */
  static ConfigurableEnvironment environmentOf(
      SpringApplicationBuilder application, String... args) {
    AtomicReference<ConfigurableEnvironment> prepared = new AtomicReference<>();
    try {
      SpringApplication.withHook(
          app ->
              new SpringApplicationRunListener() {
                @Override
                public void environmentPrepared(
                    ConfigurableBootstrapContext bootstrapContext,
                    ConfigurableEnvironment environment) {
                  prepared.set(environment);
                  throw new SpringApplication.AbandonedRunException();
                }
              },
          () -> application.logStartupInfo(false).run(args));
    } catch (SpringApplication.AbandonedRunException expected) {
      // the environment is all this test wants
    }
    return prepared.get();
  }
}
