package dev.fencepost.railstub;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringApplicationRunListener;
import org.springframework.boot.bootstrap.ConfigurableBootstrapContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The rail stub started as {@code main} starts it reads {@code rail-stub.yaml}, and {@code
 * rail-stub-realistic.yaml} with the {@code realistic} profile, by the config name it sets itself.
 */
class OwnConfigTest {

  @Test
  void startedAsMainStartsItTheStubReadsRailStubYaml() {
    ConfigurableEnvironment environment = environmentOf(RailStubApplication.application());

    assertThat(environment.getProperty("spring.config.name")).isEqualTo("rail-stub");
    assertThat(environment.getProperty("spring.application.name")).isEqualTo("rail-stub");
    assertThat(environment.getProperty("server.port")).isEqualTo("8083");
    assertThat(environment.getProperty("fencepost.stub.latency.distribution")).isEqualTo("FIXED");
  }

  @Test
  void theRealisticProfileReadsRailStubRealisticYamlOverRailStubYaml() {
    ConfigurableEnvironment environment =
        environmentOf(RailStubApplication.application(), "--spring.profiles.active=realistic");

    assertThat(environment.getProperty("server.port")).isEqualTo("8083");
    assertThat(environment.getProperty("fencepost.stub.latency.distribution"))
        .isEqualTo("LOGNORMAL");
    assertThat(environment.getProperty("fencepost.stub.lookup-lag")).isEqualTo("2m");
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
