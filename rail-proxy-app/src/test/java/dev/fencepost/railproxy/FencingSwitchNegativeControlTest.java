package dev.fencepost.railproxy;

import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.fencepost.testsupport.http.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.logging.CapturedEvents;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Negative controls for the two guards (FR-29, ADR 0043, NFR-07): with a guard switched off for an
 * experiment, the submission it exists to stop reaches the rail. The same sequences with the guards
 * on are refused in {@link RailSubmissionTest}. Each test starts the real application itself.
 */
@Tag("FR-29")
@Tag("NFR-07")
class FencingSwitchNegativeControlTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  static final WireMockServer rail = ProxyUnderTest.settlingRail("RAIL-X");

  @RegisterExtension CapturedEvents events = new CapturedEvents();

  private ConfigurableApplicationContext app;

  @AfterEach
  void stopApp() {
    if (app != null) {
      app.close();
    }
  }

  @AfterAll
  static void stopRail() {
    rail.stop();
  }

  @Test
  void withTheHighWaterGuardOffAStaleTokenReachesTheRail() {
    ProxyHttp proxy =
        start(
            "--fencepost.proxy.fencing.high-water-enabled=false",
            "--fencepost.proxy.fencing.experiment=true");

    assertThat(proxy.submit("po-hw-new", "acc-hw", 12).statusCode()).isEqualTo(200);
    HttpResponseAssert stale = new HttpResponseAssert(proxy.submit("po-hw-stale", "acc-hw", 11));

    // The paused holder's submission (token 11 after 12 was seen) goes through: a second payment.
    stale.isAccepted();
    assertThat(railRequestsFor("po-hw-stale")).isEqualTo(1);
    assertThat(events.named("fencing.disabled"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e).containsEntry("check", "high-water");
              assertThat(e).containsEntry("guard", "rail-proxy");
              assertThat(e).containsEntry("level", "WARN");
            });
    assertThat(events.named("lock.fenced_out")).isEmpty();
  }

  @Test
  void withTheUniquenessGuardOffADuplicateSubmissionReachesTheRail() {
    ProxyHttp proxy =
        start(
            "--fencepost.proxy.fencing.uniqueness-enabled=false",
            "--fencepost.proxy.fencing.experiment=true");

    assertThat(proxy.submit("po-dup", "acc-dup", 5).statusCode()).isEqualTo(200);
    new HttpResponseAssert(proxy.submit("po-dup", "acc-dup", 6)).isAccepted();

    assertThat(railRequestsFor("po-dup")).isEqualTo(2);
    JdbcTemplate jdbc = new JdbcTemplate(proxydb.dataSource());
    // The schema's UNIQUE constraint stayed in place: the extra row went to the side table.
    assertThat(
            jdbc.queryForObject(
                "SELECT count(*) FROM rail_submission WHERE payout_id = 'po-dup'", Long.class))
        .isEqualTo(1);
    assertThat(
            jdbc.queryForObject(
                "SELECT outcome FROM unguarded_submission WHERE payout_id = 'po-dup'",
                String.class))
        .isEqualTo("ACKED");
    assertThat(events.named("fencing.disabled"))
        .singleElement()
        .satisfies(e -> assertThat(e).containsEntry("check", "uniqueness"));
    assertThat(events.named("rail.submission.unguarded_duplicate")).hasSize(1);
  }

  @Test
  void aGuardCannotBeSwitchedOffWithoutTheExperimentFlag() {
    for (String flag :
        List.of(
            "--fencepost.proxy.fencing.high-water-enabled=false",
            "--fencepost.proxy.fencing.uniqueness-enabled=false")) {
      assertThatThrownBy(() -> start(flag))
          .as(flag)
          .rootCause()
          .hasMessageContaining("fencepost.proxy.fencing.experiment=true");
    }
  }

  @Test
  void withBothGuardsOnNothingIsAnnounced() {
    FencingSwitches.from(new ProxyProperties.Fencing(true, true, false), new SimpleMeterRegistry());

    assertThat(events.named("fencing.disabled")).isEmpty();
  }

  private ProxyHttp start(String... switches) {
    List<String> args = ProxyUnderTest.args(proxydb, rail);
    args.add(TestGrants.staticProxyArg());
    args.addAll(List.of(switches));
    app =
        RailProxyApplication.application()
            // Boot re-initialises logging while starting, which detaches the capture; re-attach it
            // after that and before any bean (and so any start-up event) is created.
            .listeners((ApplicationListener<ApplicationPreparedEvent>) prepared -> events.start())
            .run(args.toArray(String[]::new));
    return new ProxyHttp(ProxyUnderTest.port(app));
  }

  private static long railRequestsFor(String payout) {
    return rail.countRequestsMatching(
            postRequestedFor(urlEqualTo("/rail/payments"))
                .withRequestBody(matchingJsonPath("$.clientReference", equalTo("cref-" + payout)))
                .build())
        .getCount();
  }

  /** Small readable assertion for "the proxy let it through". */
  private record HttpResponseAssert(java.net.http.HttpResponse<String> response) {
    void isAccepted() {
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      assertThat(json(response).get("outcome").asString()).isEqualTo("ACKED");
    }
  }
}
