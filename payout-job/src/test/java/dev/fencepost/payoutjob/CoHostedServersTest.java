package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.railproxy.RailProxyApplication;
import dev.fencepost.railstub.RailStubApplication;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * This test class path is the payout job's: JDBC, Liquibase, Spring Batch and batch-support are on
 * it. The lock server, the rail proxy and the rail stub each start here as their {@code main}
 * starts them, given only where their own database is, with no auto-configuration to leave out:
 * none of them becomes a batch application or builds a database it does not have.
 */
class CoHostedServersTest {

  private static final EmbeddedPostgresServer POSTGRES = EmbeddedPostgresServer.shared();

  @Test
  void theRailStubStartsWithoutADatabase() {
    try (ConfigurableApplicationContext stub = start(RailStubApplication.application())) {
      assertThat(stub.isActive()).isTrue();
      assertThat(stub.getBeanNamesForType(javax.sql.DataSource.class)).isEmpty();
    }
  }

  @Test
  void theRailProxyStartsOnItsProxydbWithItsOwnSchemaOnly() {
    PostgresDatabase proxydb = POSTGRES.createDatabase("cohosted_proxydb");
    try (ConfigurableApplicationContext proxy =
        start(
            RailProxyApplication.application(),
            "--spring.datasource.url=" + proxydb.jdbcUrl(),
            "--spring.datasource.username=" + proxydb.username(),
            "--spring.datasource.password=" + proxydb.password(),
            "--fencepost.rail.base-url=http://127.0.0.1:9")) {
      assertThat(proxy.isActive()).isTrue();
      assertThat(tables(proxydb)).contains("rail_submission").doesNotContain("batch_job_instance");
    }
  }

  @Test
  void theLockServerStartsOnItsLockdbWithItsOwnSchemaOnly() {
    PostgresDatabase lockdb = POSTGRES.createDatabase("cohosted_lockdb");
    try (ConfigurableApplicationContext lockServer =
        start(
            LockServerApplication.application(),
            "--spring.datasource.url=" + lockdb.jdbcUrl(),
            "--spring.datasource.username=" + lockdb.username(),
            "--spring.datasource.password=" + lockdb.password())) {
      assertThat(lockServer.isActive()).isTrue();
      assertThat(tables(lockdb)).contains("lock_entry").doesNotContain("batch_job_instance");
    }
  }

  private static ConfigurableApplicationContext start(
      SpringApplicationBuilder application, String... args) {
    List<String> all = new java.util.ArrayList<>(List.of(args));
    all.add("--server.port=0");
    all.add("--server.address=127.0.0.1");
    all.add("--logging.structured.format.console=");
    return application.run(all.toArray(String[]::new));
  }

  private static List<String> tables(PostgresDatabase database) {
    return org.springframework.jdbc.core.simple.JdbcClient.create(database.dataSource())
        .sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
        .query(String.class)
        .list();
  }
}
