package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.testsupport.spring.PreparedEnvironment;
import org.junit.jupiter.api.Test;
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

    ConfigurableEnvironment environment =
        PreparedEnvironment.of(RailProxyApplication.application());

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
        PreparedEnvironment.of(RailProxyApplication.application(), "--server.port=18082");

    assertThat(environment.getProperty("server.port")).isEqualTo("18082");
  }
}
