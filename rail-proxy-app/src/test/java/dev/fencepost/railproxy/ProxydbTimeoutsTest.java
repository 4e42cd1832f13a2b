package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import dev.fencepost.testsupport.postgres.Sessions;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * proxydb's pool, Boot's own {@code spring.datasource}, carries the db module's timeouts: every
 * session proxydb opens for the proxy has the server-side bounds, and the driver the socket bound
 * (ADR 0155). What the bounds do when the database goes silent is shown in lock-server-app's and
 * payment-resource's black-hole tests, on the same shared code.
 */
class ProxydbTimeoutsTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  static final WireMockServer rail = ProxyUnderTest.settlingRail("RAIL-T");

  @AfterAll
  static void stopRail() {
    rail.stop();
  }

  @Test
  void everyProxydbSessionIsBoundedOnTheServerAndOnTheSocket() throws Exception {
    List<String> args = ProxyUnderTest.args(proxydb, rail);
    args.add(TestGrants.staticProxyArg());
    try (ConfigurableApplicationContext app =
        RailProxyApplication.application().run(args.toArray(String[]::new))) {
      DataSource dataSource = app.getBean(DataSource.class);
      assertThat(Sessions.timeouts(dataSource)).isEqualTo("5s 3s 5s, network 8000 ms");
    }
  }
}
