package dev.fencepost.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.launcher.LocalPlatform;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The console's reads cannot write or lock (ADR 0186), shown on a real paydb through the console's
 * own pool, connected as paydb's runtime role, which MAY write: the session itself refuses. (The
 * console's real role, a member of pg_read_all_data, could not write anyway; this is the second,
 * independent guard.)
 */
class ReadOnlySessionTest {

  static PostgresDatabase paydb;
  static HikariDataSource pool;

  @BeforeAll
  static void paydb() {
    paydb = LocalPlatform.createPaydb(EmbeddedPostgresServer.shared(), "console_paydb");
    ConsoleProperties.Database settings = new ConsoleProperties.Database();
    settings.setUrl(paydb.jdbcUrl());
    settings.setUsername(paydb.runtime().username());
    settings.setPassword(paydb.runtime().password());
    pool = ReadOnlyDatabases.pool("paydb", settings);
  }

  @AfterAll
  static void close() {
    pool.close();
    paydb.close();
  }

  @Test
  void theConsolesSessionReads() {
    assertThat(
            JdbcClient.create(pool).sql("SELECT count(*) FROM payout").query(Long.class).single())
        .isZero();
  }

  @Test
  void theConsolesSessionRefusesAWriteThatItsRoleMayMake() {
    JdbcClient console = JdbcClient.create(pool);
    assertThatThrownBy(
            () ->
                console
                    .sql(
                        "INSERT INTO account (id, kind, currency) VALUES ('acc-console', 'CUSTOMER',"
                            + " 'EUR')")
                    .update())
        .hasMessageContaining("read-only transaction");
    // The runtime role itself could have written it: the refusal is the session's.
    JdbcClient superuser = JdbcClient.create(paydb.dataSource());
    assertThat(
            superuser
                .sql("SELECT count(*) FROM account WHERE id = 'acc-console'")
                .query(Long.class)
                .single())
        .isZero();
  }

  @Test
  void theConsolesSessionTakesNoRowLock() {
    assertThatThrownBy(
            () ->
                JdbcClient.create(pool)
                    .sql("SELECT id FROM account FOR UPDATE")
                    .query(String.class)
                    .list())
        .hasMessageContaining("read-only transaction");
  }
}
