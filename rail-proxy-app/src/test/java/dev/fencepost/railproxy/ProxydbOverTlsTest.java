package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * proxydb's pool, Boot's own {@code spring.datasource}, carries the db module's TLS settings (ADR
 * 0157): configured with {@code verify-full} and the CA of proxydb's server, every session it opens
 * is encrypted. What verify-full refuses is shown by the launcher's {@code
 * DatabaseTlsOnARealServerTest} and lock-server-app's {@code LockdbOverTlsTest}, on the same shared
 * code.
 */
class ProxydbOverTlsTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  static final WireMockServer rail = ProxyUnderTest.settlingRail("RAIL-TLS");

  @AfterAll
  static void stopRail() {
    rail.stop();
  }

  @Test
  void withVerifyFullEveryProxydbSessionIsEncrypted() {
    List<String> args = ProxyUnderTest.args(proxydb, rail);
    args.add(TestGrants.staticProxyArg());
    args.add("--fencepost.db.tls.mode=verify-full");
    args.add("--fencepost.db.tls.root-cert=" + proxydb.server().caFile());
    try (ConfigurableApplicationContext app =
        RailProxyApplication.application().run(args.toArray(String[]::new))) {
      DataSource dataSource = app.getBean(DataSource.class);
      assertThat(((HikariDataSource) dataSource).getDataSourceProperties())
          .containsEntry("sslmode", "verify-full")
          .containsEntry("sslrootcert", proxydb.server().caFile().toAbsolutePath().toString());
      assertThat(
              JdbcClient.create(dataSource)
                  .sql("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
                  .query(Boolean.class)
                  .single())
          .isTrue();
    }
  }
}
