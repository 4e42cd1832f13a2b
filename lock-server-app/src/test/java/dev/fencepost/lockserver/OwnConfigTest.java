package dev.fencepost.lockserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringApplicationRunListener;
import org.springframework.boot.bootstrap.ConfigurableBootstrapContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The lock server started as {@code main} starts it reads {@code lock-server.yaml}, by the config
 * name it sets itself: no caller has to point it at its own settings.
 */
class OwnConfigTest {

  @Test
  void startedAsMainStartsItTheServerReadsLockServerYaml() {
    ConfigurableEnvironment environment = environmentOf(LockServerApplication.application());

    assertThat(environment.getProperty("spring.config.name")).isEqualTo("lock-server");
    assertThat(environment.getProperty("spring.application.name")).isEqualTo("lock-server");
    assertThat(environment.getProperty("server.port")).isEqualTo("8081");
    assertThat(environment.getProperty("server.tomcat.max-keep-alive-requests")).isEqualTo("-1");
  }

  @Test
  void aCommandLineArgumentStillOverridesItsFile() {
    ConfigurableEnvironment environment =
        environmentOf(LockServerApplication.application(), "--server.port=18081");

    assertThat(environment.getProperty("server.port")).isEqualTo("18081");
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
