package dev.fencepost.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringApplicationRunListener;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.bootstrap.ConfigurableBootstrapContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * A job reads batch-support's {@code batch-defaults.yaml} and then its own file, named by {@code
 * spring.config.name} given as a default property (as the jobs' {@code application()} do); the
 * job's file wins where both set something.
 */
class BatchDefaultsTest {

  @SpringBootConfiguration(proxyBeanMethods = false)
  static class SomeJob {}

  @Test
  void theJobsOwnFileOverridesBatchDefaultsAndTheOtherDefaultsStillApply() {
    ConfigurableEnvironment environment =
        environmentOf(BatchDefaults.configNames("precedence-job"));

    assertThat(environment.getProperty("spring.application.name")).isEqualTo("precedence-job");
    assertThat(environment.getProperty("spring.batch.jdbc.isolation-level-for-create"))
        .isEqualTo("serializable");
    assertThat(environment.getProperty("spring.batch.jdbc.initialize-schema")).isEqualTo("never");
    assertThat(environment.getProperty("spring.liquibase.change-log"))
        .isEqualTo(BatchDefaults.BATCHDB_CHANGELOG);
  }

  @Test
  void ofTwoConfigNamesTheLaterOnesFileWins() {
    ConfigurableEnvironment environment =
        environmentOf("precedence-job," + BatchDefaults.CONFIG_NAME);

    assertThat(environment.getProperty("spring.batch.jdbc.isolation-level-for-create"))
        .isEqualTo("read_committed");
  }

  @Test
  void aJobsConfigNameIsOneName() {
    assertThat(BatchDefaults.configNames("payout-job")).isEqualTo("batch-defaults,payout-job");
    assertThatThrownBy(() -> BatchDefaults.configNames(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one non-blank name");
    assertThatThrownBy(() -> BatchDefaults.configNames("a,b"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * The environment an application started with these config names would have, read as soon as its
   * configuration files are loaded; the start stops there, before any bean exists.
   */
  private static ConfigurableEnvironment environmentOf(String configNames) {
    SpringApplicationBuilder application =
        new SpringApplicationBuilder(SomeJob.class)
            .properties("spring.config.name=" + configNames)
            .logStartupInfo(false);
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
          () -> application.run());
    } catch (SpringApplication.AbandonedRunException expected) {
      // the environment is all this test wants
    }
    return prepared.get();
  }
}
