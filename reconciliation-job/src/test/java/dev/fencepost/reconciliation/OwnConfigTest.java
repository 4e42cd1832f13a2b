package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.batch.BatchDefaults;
import dev.fencepost.testsupport.spring.PreparedEnvironment;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The reconciliation job started as {@code main} starts it reads batch-support's {@code
 * batch-defaults.yaml} and then its own {@code reconciliation-job.yaml}, by the config names it
 * sets itself, and nothing of the lock server's, the proxy's or the stub's files on this test class
 * path.
 */
class OwnConfigTest {

  @Test
  void startedAsMainStartsItTheJobReadsBatchDefaultsAndReconciliationJobYamlOnly() {
    ConfigurableEnvironment environment =
        PreparedEnvironment.of(ReconciliationApplication.application());

    assertThat(environment.getProperty("spring.config.name"))
        .isEqualTo("batch-defaults,reconciliation-job");
    assertThat(environment.getProperty("spring.application.name")).isEqualTo("reconciliation-job");
    assertThat(environment.getProperty("spring.liquibase.change-log"))
        .isEqualTo(BatchDefaults.BATCHDB_CHANGELOG);
    assertThat(environment.getProperty("spring.batch.jdbc.initialize-schema")).isEqualTo("never");
    assertThat(environment.getProperty("fencepost.paydb.url"))
        .isEqualTo("jdbc:postgresql://localhost:5432/paydb");
    assertThat(environment.getProperty("fencepost.reconciliation.settlement-window"))
        .isEqualTo("30m");
    // Nothing of the lock server's, the proxy's or the stub's files.
    assertThat(environment.getProperty("server.port")).isEqualTo("8086");
    assertThat(environment.getProperty("fencepost.lock.backend")).isNull();
    assertThat(environment.getProperty("fencepost.rail.base-url")).isNull();
    assertThat(environment.getProperty("fencepost.stub.seed")).isNull();
  }
}
