package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.fencepost.railproxy.SignedGrantSubmissionTest.MaxTokenOutcome;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Negative control of the grant check (ADR 0137): with a verifier that accepts anything, which only
 * a test can install, the same maximum-token scenario that {@link SignedGrantSubmissionTest} shows
 * harmless raises the account's high-water to the maximum, and the account's next real holder is
 * refused as stale for good. The scenario detects the missing check.
 */
@Tag("FR-17")
class AcceptAnyGrantNegativeControlTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  static WireMockServer rail;
  static ConfigurableApplicationContext app;

  @BeforeAll
  static void start() {
    rail = ProxyUnderTest.settlingRail("RAIL-ANY");
    // Nothing answers here: the accepting verifier never asks for keys.
    app =
        SignedGrantSubmissionTest.startProxy(
            proxydb, rail, "http://127.0.0.1:9/v1/grant-keys", request -> {});
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
    rail.stop();
  }

  @Test
  void withAVerifierThatAcceptsAnythingTheMaximumTokenBricksTheAccount() throws Exception {
    MaxTokenOutcome outcome =
        SignedGrantSubmissionTest.maxTokenScenario(
            new ProxyHttp(ProxyUnderTest.port(app)),
            new JdbcTemplate(proxydb.dataSource()),
            rail,
            TestGrants.keys().current());

    assertThat(outcome.statuses()).first().isEqualTo(200);
    assertThat(outcome.highWaterAfter()).isEqualTo(Long.MAX_VALUE);
    assertThat(outcome.maxTokenRailRequests()).isPositive();
    assertThat(outcome.nextHolderStatus()).isEqualTo(409);
  }
}
