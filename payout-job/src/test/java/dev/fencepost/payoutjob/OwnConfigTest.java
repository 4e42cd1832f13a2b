package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.batch.BatchDefaults;
import dev.fencepost.testsupport.spring.PreparedEnvironment;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The payout job started as {@code main} starts it reads batch-support's {@code
 * batch-defaults.yaml} and then its own {@code payout-job.yaml}, by the config names it sets
 * itself. Every other application runs as its own process from its own jar; its own OwnConfigTest
 * says what it reads.
 */
class OwnConfigTest {

  @Test
  void startedAsMainStartsItTheJobReadsBatchDefaultsAndPayoutJobYamlOnly() {
    ConfigurableEnvironment environment =
        PreparedEnvironment.of(PayoutJobApplication.application());

    assertThat(environment.getProperty("spring.config.name"))
        .isEqualTo("batch-defaults,payout-job");
    assertThat(environment.getProperty("spring.application.name")).isEqualTo("payout-job");
    assertThat(environment.getProperty("server.port")).isEqualTo("8085");
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
    assertThat(
            PreparedEnvironment.of(PayoutJobApplication.application())
                .getProperty("fencepost.paydb.url"))
        .isEqualTo("jdbc:postgresql://localhost:5432/paydb");
    assertThat(
            PreparedEnvironment.of(
                    PayoutJobApplication.application(),
                    "--fencepost.paydb.url=jdbc:postgresql://db:5432/paydb")
                .getProperty("fencepost.paydb.url"))
        .isEqualTo("jdbc:postgresql://db:5432/paydb");
  }
}
