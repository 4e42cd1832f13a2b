package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.launcher.LocalTls;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.lockserver.http.LockServerClient.Response;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The lock server on lockdb with {@code fencepost.db.tls.mode=verify-full} (ADR 0157): with the CA
 * that signs lockdb's certificate it grants locks, and every session of its runtime role is
 * encrypted; with another CA it never talks to lockdb, and answers 503 rather than trusting a
 * server it cannot verify.
 */
class LockdbOverTlsTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog(PostgresBackends.LOCKDB_CHANGELOG);

  @TempDir static Path dir;

  private final String key = "payout:acc-" + UUID.randomUUID();

  @Test
  void withVerifyFullAndLockdbsCaTheServerGrantsLocksOverEncryptedSessions() {
    EmbeddedPostgresServer postgres = lockdb.server();
    try (ConfigurableApplicationContext server =
        PostgresLockServer.start(
            lockdb,
            "--fencepost.db.tls.mode=verify-full",
            "--fencepost.db.tls.root-cert=" + postgres.caFile())) {
      LockServerClient client = LockServerClient.of(server);
      String session = client.newSession("tls");
      assertThat(client.acquire(key, session, 0).status()).isEqualTo(200);

      List<Map<String, Object>> sessions = runtimeRoleSessions();
      assertThat(sessions).isNotEmpty();
      assertThat(sessions).allSatisfy(s -> assertThat(s.get("ssl")).isEqualTo(true));
    }
  }

  @Test
  void withAnotherCaTheServerRefusesLockdbAndAnswers503() {
    Path anotherCa = LocalTls.generate(dir.resolve("another-ca")).caFile();
    try (ConfigurableApplicationContext server =
        PostgresLockServer.start(
            lockdb,
            "--fencepost.db.tls.mode=verify-full",
            "--fencepost.db.tls.root-cert=" + anotherCa,
            "--fencepost.db.timeouts.connection-timeout=2s")) {
      Response created = LockServerClient.of(server).createSession("tls", 60_000);
      assertThat(created.status()).isEqualTo(503);
      assertThat(created.code()).isEqualTo("BACKEND_UNAVAILABLE");
      // Sessions of an earlier server may take a moment to end; none of this one's ever begins.
      await().atMost(Duration.ofSeconds(30)).until(() -> runtimeRoleSessions().isEmpty());
    }
  }

  /** The runtime role's sessions on lockdb's server, with whether each is encrypted. */
  private static List<Map<String, Object>> runtimeRoleSessions() {
    return JdbcClient.create(lockdb.dataSource())
        .sql(
            "SELECT a.pid, s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid"
                + " WHERE a.usename = ?")
        .param(lockdb.database().runtime().username())
        .query()
        .listOfRows();
  }
}
