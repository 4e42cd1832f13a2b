package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.batch.BatchDefaults;
import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.railproxy.RailProxyApplication;
import dev.fencepost.railstub.RailStubApplication;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringApplicationRunListener;
import org.springframework.boot.bootstrap.ConfigurableBootstrapContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The payout job started as {@code main} starts it reads batch-support's {@code
 * batch-defaults.yaml} and then its own {@code payout-job.yaml}, by the config names it sets
 * itself; the lock server's, the proxy's and the stub's files are on this test class path too, and
 * each of those applications, started the same way, reads only its own.
 */
class OwnConfigTest {

  @Test
  void startedAsMainStartsItTheJobReadsBatchDefaultsAndPayoutJobYamlOnly() {
    ConfigurableEnvironment environment = environmentOf(PayoutJobApplication.application());

    assertThat(environment.getProperty("spring.config.name"))
        .isEqualTo("batch-defaults,payout-job");
    assertThat(environment.getProperty("spring.application.name")).isEqualTo("payout-job");
    assertThat(environment.getProperty("server.port")).isEqualTo("8084");
    assertThat(environment.getProperty("spring.batch.job.name")).isEqualTo("payoutJob");
    assertThat(environment.getProperty("spring.liquibase.change-log"))
        .isEqualTo(BatchDefaults.BATCHDB_CHANGELOG);
    assertThat(environment.getProperty("spring.batch.jdbc.isolation-level-for-create"))
        .isEqualTo("read_committed");
    assertThat(environment.getProperty("fencepost.paydb.maximum-pool-size")).isEqualTo("4");
    // Nothing of the lock server's, the proxy's or the stub's files.
    assertThat(environment.getProperty("fencepost.lock.backend")).isNull();
    assertThat(environment.getProperty("fencepost.rail.base-url")).isNull();
    assertThat(environment.getProperty("fencepost.stub.seed")).isNull();
  }

  @Test
  void paydbIsTheLocalOneUnlessToldOtherwise() {
    assertThat(environmentOf(PayoutJobApplication.application()).getProperty("fencepost.paydb.url"))
        .isEqualTo("jdbc:postgresql://localhost:5432/paydb");
    assertThat(
            environmentOf(
                    PayoutJobApplication.application(),
                    "--fencepost.paydb.url=jdbc:postgresql://db:5432/paydb")
                .getProperty("fencepost.paydb.url"))
        .isEqualTo("jdbc:postgresql://db:5432/paydb");
  }

  @Test
  void eachServerOnThisClassPathReadsItsOwnFile() {
    assertThat(environmentOf(LockServerApplication.application()))
        .satisfies(
            env -> {
              assertThat(env.getProperty("spring.application.name")).isEqualTo("lock-server");
              assertThat(env.getProperty("server.port")).isEqualTo("8081");
              assertThat(env.getProperty("spring.batch.job.name")).isNull();
            });
    assertThat(environmentOf(RailProxyApplication.application()))
        .satisfies(
            env -> {
              assertThat(env.getProperty("spring.application.name")).isEqualTo("rail-proxy");
              assertThat(env.getProperty("server.port")).isEqualTo("8082");
              assertThat(env.getProperty("spring.liquibase.change-log")).contains("proxydb");
            });
    assertThat(environmentOf(RailStubApplication.application()))
        .satisfies(
            env -> {
              assertThat(env.getProperty("spring.application.name")).isEqualTo("rail-stub");
              assertThat(env.getProperty("server.port")).isEqualTo("8083");
            });
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
