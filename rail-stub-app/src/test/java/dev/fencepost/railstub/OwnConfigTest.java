package dev.fencepost.railstub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.testsupport.spring.PreparedEnvironment;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The rail stub started as {@code main} starts it reads {@code rail-stub.yaml}, and {@code
 * rail-stub-realistic.yaml} with the {@code realistic} profile, by the config name it sets itself.
 */
class OwnConfigTest {

  @Test
  void startedAsMainStartsItTheStubReadsRailStubYaml() {
    ConfigurableEnvironment environment = PreparedEnvironment.of(RailStubApplication.application());

    assertThat(environment.getProperty("spring.config.name")).isEqualTo("rail-stub");
    assertThat(environment.getProperty("spring.application.name")).isEqualTo("rail-stub");
    assertThat(environment.getProperty("server.port")).isEqualTo("8083");
    assertThat(environment.getProperty("fencepost.stub.latency.distribution")).isEqualTo("FIXED");
  }

  @Test
  void theRealisticProfileReadsRailStubRealisticYamlOverRailStubYaml() {
    ConfigurableEnvironment environment =
        PreparedEnvironment.of(
            RailStubApplication.application(), "--spring.profiles.active=realistic");

    assertThat(environment.getProperty("server.port")).isEqualTo("8083");
    assertThat(environment.getProperty("fencepost.stub.latency.distribution"))
        .isEqualTo("LOGNORMAL");
    assertThat(environment.getProperty("fencepost.stub.lookup-lag")).isEqualTo("2m");
  }
}
