package dev.fencepost.launcher.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.db.tls.DatabaseTls;
import dev.fencepost.launcher.LocalTls;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DatabaseTls} on real PostgreSQL servers that serve TLS (ADR 0157): {@code verify-full}
 * with the server's CA gets an encrypted session; the same with another CA, or towards a server
 * whose certificate names another host, gets no session at all; the default refuses a server that
 * offers no TLS; and a server that accepts only {@code hostssl} refuses a plaintext client.
 */
class DatabaseTlsOnARealServerTest {

  @TempDir static Path dir;

  static EmbeddedPostgresServer server;
  static EmbeddedPostgresServer tlsOnly;
  static EmbeddedPostgresServer anotherHost;
  static EmbeddedPostgresServer withoutTls;

  @BeforeAll
  static void start() throws Exception {
    server = EmbeddedPostgresServer.builder().tls(LocalTls.generate(dir.resolve("run"))).start();
    tlsOnly = EmbeddedPostgresServer.builder().tlsOnly().start();
    anotherHost =
        EmbeddedPostgresServer.builder()
            .tls(CertificateForAnotherHost.writeInto(dir.resolve("another-host")))
            .start();
    withoutTls = EmbeddedPostgresServer.builder().withoutTls().start();
  }

  @AfterAll
  static void stop() {
    for (EmbeddedPostgresServer s :
        new EmbeddedPostgresServer[] {server, tlsOnly, anotherHost, withoutTls}) {
      if (s != null) {
        s.close();
      }
    }
  }

  @Test
  void verifyFullWithTheServersCaGetsAnEncryptedSession() throws Exception {
    assertThat(sessionIsEncrypted(server, verifyFull(server.caFile()))).isTrue();
  }

  @Test
  void verifyFullWithAnotherCaIsRefusedBeforeAnySession() {
    Path anotherCa = LocalTls.generate(dir.resolve("another-ca")).caFile();
    assertThatThrownBy(() -> sessionIsEncrypted(server, verifyFull(anotherCa)))
        .isInstanceOf(SQLException.class)
        .hasStackTraceContaining("SSLHandshakeException");
  }

  @Test
  void verifyFullTowardsAServerCertifiedForAnotherHostIsRefused() {
    DatabaseTls tls = verifyFull(anotherHost.caFile());
    assertThatThrownBy(() -> sessionIsEncrypted(anotherHost, tls))
        .isInstanceOf(SQLException.class)
        .hasStackTraceContaining("hostname 127.0.0.1 could not be verified");
  }

  @Test
  void verifyCaTowardsTheSameServerConnectsSoOnlyTheHostNameWasWrong() throws Exception {
    DatabaseTls tls = verifyFull(anotherHost.caFile());
    tls.setMode(DatabaseTls.Mode.VERIFY_CA);
    assertThat(sessionIsEncrypted(anotherHost, tls)).isTrue();
  }

  @Test
  void theDefaultRefusesAServerThatOffersNoTls() {
    assertThatThrownBy(() -> sessionIsEncrypted(withoutTls, new DatabaseTls()))
        .isInstanceOf(SQLException.class)
        .hasStackTraceContaining("does not support SSL");
  }

  @Test
  void aServerThatRequiresTlsRefusesAPlaintextPool() {
    DatabaseTls plaintext = new DatabaseTls();
    plaintext.setMode(DatabaseTls.Mode.DISABLE);
    assertThatThrownBy(() -> sessionIsEncrypted(tlsOnly, plaintext))
        .isInstanceOf(SQLException.class)
        .hasStackTraceContaining("no pg_hba.conf entry")
        .hasStackTraceContaining("no encryption");
  }

  @Test
  void aServerThatRequiresTlsAcceptsAVerifyingPool() throws Exception {
    assertThat(sessionIsEncrypted(tlsOnly, verifyFull(tlsOnly.caFile()))).isTrue();
  }

  private static DatabaseTls verifyFull(Path ca) {
    DatabaseTls tls = new DatabaseTls();
    tls.setMode(DatabaseTls.Mode.VERIFY_FULL);
    tls.setRootCert(ca);
    return tls;
  }

  /** Whether the session a pool with {@code tls} applied opens on {@code on} is encrypted. */
  private static boolean sessionIsEncrypted(EmbeddedPostgresServer on, DatabaseTls tls)
      throws SQLException {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(on.jdbcUrl("postgres"));
    config.setUsername(EmbeddedPostgresServer.USER);
    config.setPassword(EmbeddedPostgresServer.PASSWORD);
    config.setMaximumPoolSize(1);
    // Report the first refusal rather than retrying it until a timeout.
    config.setInitializationFailTimeout(-1);
    config.setConnectionTimeout(2_000);
    tls.applyTo(config);
    try (HikariDataSource pool = new HikariDataSource(config);
        Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
      rs.next();
      return rs.getBoolean(1);
    }
  }
}
