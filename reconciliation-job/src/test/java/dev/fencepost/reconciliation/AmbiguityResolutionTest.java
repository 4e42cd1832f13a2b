package dev.fencepost.reconciliation;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.security.FencepostRole;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * UC-05 steps 5 and 6: an ambiguous payout is resolved by the rail's evidence only, under the
 * account's lock (ADR 0037), and never by resubmitting; without evidence it stays ambiguous and
 * ages into a ticket.
 */
@Tag("UC-05")
class AmbiguityResolutionTest extends ReconciliationTestBase {

  private static final Duration LOOKUP_LAG = Duration.ofSeconds(6);
  private static final Duration SETTLEMENT_WINDOW = Duration.ofSeconds(7);

  @Test
  @Tag("A-08")
  void everyAmbiguousPayoutResolvesToTheRailsGroundTruthOnceTheLookupLagHasPassed() {
    List<Payout> settled = new ArrayList<>();
    List<Payout> neverSent = new ArrayList<>();
    Map<String, String> overrides = new HashMap<>();
    for (int i = 0; i < 3; i++) {
      Payout a = world.pending();
      Payout b = world.pending();
      overrides.put(a.clientReference(), "TIMEOUT_AFTER_SETTLE");
      overrides.put(b.clientReference(), "TIMEOUT_BEFORE_SETTLE");
      settled.add(a);
      neverSent.add(b);
    }
    world.faults(overrides, LOOKUP_LAG);
    List<Payout> all = new ArrayList<>(settled);
    all.addAll(neverSent);
    Map<Object, Long> workerTokens = new HashMap<>();
    for (Payout p : all) {
      Payout ambiguous = world.execute(p, World.Until.POSTED);
      assertThat(ambiguous.state()).isEqualTo(PayoutState.RAIL_AMBIGUOUS);
      workerTokens.put(p.id(), ambiguous.tokenStamp());
    }
    int movementsBefore = world.movements().size();
    assertThat(movementsBefore).isEqualTo(3);
    ReconciliationSettings settings = world.settings().withSettlementWindow(SETTLEMENT_WINDOW);
    Reconciler reconciler = world.reconciler(settings);

    // Inside the lag the rail shows nothing yet: no evidence, so nothing moves.
    StoreSnapshot before = StoreSnapshot.of(world);
    ReconciliationReport early = reconciler.run(world.window(), "test");
    assertThat(early.resolutions().examined()).isEqualTo(6);
    assertThat(early.resolutions().settled() + early.resolutions().absent()).isZero();
    assertThat(StoreSnapshot.of(world)).isEqualTo(before);

    // Wait for the evidence: the rail's lookup shows the settled movements, and the settlement
    // window has passed for the ones it will never show.
    ProxyReadClient lookups =
        new ProxyReadClient(
            world.stack.proxyUrl(),
            Duration.ofSeconds(5),
            world.stack.tokens(FencepostRole.RECONCILER));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                settled.stream()
                        .allMatch(
                            p -> lookups.lookup(p.clientReference()) instanceof RailLookup.Found)
                    && windowPassedForAll(new PaydbReads(world.paydb)));

    ReconciliationReport late = reconciler.run(world.window(), "test");

    assertThat(late.resolutions().settled()).isEqualTo(3);
    assertThat(late.resolutions().absent()).isEqualTo(3);
    for (Payout p : settled) {
      Payout now = world.payments.findPayout(p.id()).orElseThrow();
      assertThat(now.state()).isEqualTo(PayoutState.RAIL_ACKED);
      assertThat(now.railReference()).isEqualTo(railReferenceOf(p.clientReference()));
      // A grant newer than the worker's: the reconciler took the account's lock (ADR 0037).
      assertThat(now.tokenStamp()).isGreaterThan(workerTokens.get(p.id()));
    }
    for (Payout p : neverSent) {
      Payout now = world.payments.findPayout(p.id()).orElseThrow();
      assertThat(now.state()).isEqualTo(PayoutState.FAILED);
      assertThat(now.failureReason()).contains("no movement");
    }
    // No resolution ever submits: the rail saw exactly what the workers sent, once each.
    assertThat(world.movements().size()).isEqualTo(movementsBefore);
    // Every resolution is audited as the reconciler, with a token from the account's lock (ADR
    // 0037).
    assertThat(
            world
                .sql
                .sql(
                    "SELECT count(*) FROM audit_event WHERE actor_role = 'RECONCILER'"
                        + " AND fencing_token IS NOT NULL")
                .query(Long.class)
                .single())
        .isEqualTo(6L);
    assertThat(events.named("reconciliation.resolution"))
        .filteredOn(e -> "SETTLED".equals(e.get("result")) || "ABSENT".equals(e.get("result")))
        .hasSize(6)
        .allSatisfy(e -> assertThat(e.get("token")).isNotNull());

    // A worker's recovery posts the RAIL_ACKED ones (ADR 0034); then the stores agree.
    for (Payout p : settled) {
      world.locks.execute(
          p.accountId().lockKey(),
          Duration.ofSeconds(5),
          lock ->
              world.payments.post(
                  p.id(), lock.token(), dev.fencepost.payment.Actor.worker("recovery")));
    }
    DetectionTest.assertOnly(reconciler.run(world.window(), "test"), Map.of());
  }

  @Test
  @Tag("A-10")
  void withTheLookupDownAnAmbiguousPayoutStaysAmbiguousAndAgesIntoATicket() {
    WireMockServer lookupDown = new WireMockServer(options().dynamicPort());
    lookupDown.start();
    try {
      // The proxy's reads pass through; only the rail lookup answers 503, as the proxy does when
      // the rail's lookup is down (docs/rail.md).
      lookupDown.stubFor(
          any(anyUrl()).atPriority(10).willReturn(aResponse().proxiedFrom(world.stack.proxyUrl())));
      lookupDown.stubFor(
          get(urlPathEqualTo("/v1/rail/payments"))
              .atPriority(1)
              .willReturn(
                  aResponse()
                      .withStatus(503)
                      .withHeader("Content-Type", "application/problem+json")
                      .withBody("{\"code\":\"RAIL_LOOKUP_UNAVAILABLE\"}")));
      Payout payout = world.pending();
      world.faults(Map.of(payout.clientReference(), "TIMEOUT_AFTER_SETTLE"), Duration.ZERO);
      assertThat(world.execute(payout, World.Until.POSTED).state())
          .isEqualTo(PayoutState.RAIL_AMBIGUOUS);
      // Four hours cannot pass in a test: age the payout by SQL (no API moves a timestamp back).
      world
          .sql
          .sql(
              "UPDATE payout SET submitted_at = submitted_at - interval '5 hours'"
                  + " WHERE id = :id")
          .param("id", payout.id().value())
          .update();
      StoreSnapshot before = StoreSnapshot.of(world);

      ReconciliationReport report =
          world.reconciler(world.settings(), lookupDown.baseUrl()).run(world.window(), "test");

      assertThat(report.resolutions().lookupUnavailable()).isEqualTo(1);
      assertThat(world.payments.findPayout(payout.id()).orElseThrow().state())
          .isEqualTo(PayoutState.RAIL_AMBIGUOUS);
      DetectionTest.assertOnly(report, Map.of(Discrepancy.AMBIGUOUS_BEYOND_SLA, 1L));
      assertThat(report.findings())
          .singleElement()
          .extracting(Finding::severity)
          .isEqualTo(Severity.TICKET);
      assertThat(report.oldestAmbiguousAge()).isGreaterThanOrEqualTo(Duration.ofHours(5));
      assertThat(
              world
                  .meters
                  .get("fencepost.reconciliation.ambiguous.oldest.age.seconds")
                  .gauge()
                  .value())
          .isGreaterThanOrEqualTo(5 * 3600.0);
      assertThat(events.named("reconciliation.finding"))
          .singleElement()
          .satisfies(e -> assertThat(e.get("level")).isEqualTo("WARN"));
      assertThat(StoreSnapshot.of(world)).isEqualTo(before);
      assertThat(world.movementCount(payout.clientReference())).isEqualTo(1);
    } finally {
      lookupDown.stop();
    }
  }

  @Test
  void resolutionWaitsForTheAccountLockAndLeavesThePayoutWhenItCannotHaveIt() throws Exception {
    Payout payout = world.pending();
    world.faults(Map.of(payout.clientReference(), "TIMEOUT_AFTER_SETTLE"), Duration.ZERO);
    world.execute(payout, World.Until.POSTED);
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      // Another holder of payout:{account} (a worker, say) for the whole run.
      Future<?> holder =
          other.submit(
              () ->
                  world.locks.execute(
                      payout.accountId().lockKey(),
                      Duration.ofSeconds(5),
                      lock -> {
                        held.countDown();
                        try {
                          return release.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                          return false;
                        }
                      }));
      assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
      StoreSnapshot before = StoreSnapshot.of(world);

      ReconciliationReport report = world.reconciler(world.settings()).run(world.window(), "test");

      assertThat(report.resolutions().skipped()).isEqualTo(1);
      assertThat(world.payments.findPayout(payout.id()).orElseThrow().state())
          .isEqualTo(PayoutState.RAIL_AMBIGUOUS);
      assertThat(StoreSnapshot.of(world)).isEqualTo(before);
      release.countDown();
      holder.get(10, TimeUnit.SECONDS);
    } finally {
      release.countDown();
      other.shutdownNow();
    }

    // With the lock free the same evidence resolves it.
    ReconciliationReport next = world.reconciler(world.settings()).run(world.window(), "test");
    assertThat(next.resolutions().settled()).isEqualTo(1);
    assertThat(world.payments.findPayout(payout.id()).orElseThrow().state())
        .isEqualTo(PayoutState.RAIL_ACKED);
    assertThat(world.movementCount(payout.clientReference())).isEqualTo(1);
  }

  private static boolean windowPassedForAll(PaydbReads reads) {
    var now = reads.now();
    return reads.ambiguous(1000).stream()
        .allMatch(a -> a.since().plus(SETTLEMENT_WINDOW).isBefore(now));
  }

  private String railReferenceOf(String clientReference) {
    for (JsonNode m : world.movements()) {
      if (clientReference.equals(m.path("clientReference").asString())) {
        return m.path("railReference").asString();
      }
    }
    throw new AssertionError("no movement for " + clientReference);
  }
}
