package dev.fencepost.lock.client.impl;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static dev.fencepost.lock.client.testing.LockServerStubs.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.client.HeldLock;
import dev.fencepost.lock.client.LockClientMetrics;
import dev.fencepost.lock.client.testing.LockServerStubs;
import dev.fencepost.lock.client.testing.TestSettings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * FR-11's arithmetic, with the server's answers pinned by WireMock: TTL 4 s and margin 30 % (1.2
 * s), so a confirmed send gives a deadline 2.8 s later. Only upper bounds on {@code remaining()}
 * are asserted: a slow machine can only make it smaller.
 */
@Tag("FR-11")
class DeadlineArithmeticTest {

  private static final Duration MARGIN = Duration.ofMillis(1200);

  @RegisterExtension static WireMockExtension server = LockServerStubs.server();

  private DefaultLockClient client;

  @BeforeEach
  void newClient() {
    client =
        new DefaultLockClient(
            TestSettings.against(server.baseUrl()).ttl(Duration.ofSeconds(4)).build(),
            LockClientMetrics.NOOP,
            List.of());
  }

  @AfterEach
  void close() {
    client.close();
  }

  @Test
  void aFullLeaseGivesTtlMinusMarginFromTheAcquiresSendTime() {
    stubSession(4000);
    stubGrant(4000);

    try (HeldLock lock = client.acquire(LockKey.of("payout:acc-1"), Duration.ZERO)) {
      assertThat(lock.remaining())
          .isLessThanOrEqualTo(Duration.ofSeconds(4).minus(MARGIN))
          .isGreaterThan(Duration.ZERO);
    }
    server.verify(0, postRequestedFor(urlPathMatching("/v1/locks/.*/renew")));
  }

  @Test
  void aShorterLeaseOnTheGrantIsAllTheDeadlineTrustsUntilARenew() {
    // PostgreSQL backend: the lock rides on a session lease last extended a while ago.
    stubSession(4000);
    stubGrant(2000);
    stubRenew(4000, Duration.ofSeconds(3));

    try (HeldLock lock = client.acquire(LockKey.of("payout:acc-1"), Duration.ZERO)) {
      assertThat(lock.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(2).minus(MARGIN));
    }
  }

  @Test
  void aShortLeaseIsRenewedAtOnceToAFullDeadline() {
    stubSession(4000);
    stubGrant(2000);
    stubRenew(4000, Duration.ZERO);

    try (HeldLock lock = client.acquire(LockKey.of("payout:acc-1"), Duration.ZERO)) {
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> lock.remaining().compareTo(Duration.ofSeconds(2).minus(MARGIN)) > 0);
      assertThat(lock.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(4).minus(MARGIN));
      assertThat(lock.isHeld()).isTrue();
    }
  }

  @Test
  void aServerThatGrantsAShorterTtlIsTrustedOnlyForWhatItGranted() {
    stubSession(2000);
    stubGrant(2000);
    stubRenew(2000, Duration.ZERO);

    try (HeldLock lock = client.acquire(LockKey.of("payout:acc-1"), Duration.ZERO)) {
      assertThat(lock.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(2).minus(MARGIN));
    }
    assertThat(client.sessionStatus().remaining())
        .isLessThanOrEqualTo(Duration.ofSeconds(2).minus(MARGIN));
  }

  private void stubSession(long ttlMillis) {
    server.stubFor(
        post(urlPathEqualTo("/v1/sessions"))
            .willReturn(json(201, LockServerStubs.session("s", ttlMillis))));
    server.stubFor(
        post(urlPathEqualTo("/v1/sessions/s/keepalive"))
            .willReturn(json(200, LockServerStubs.session("s", ttlMillis))));
  }

  private void stubGrant(long leaseMillis) {
    server.stubFor(post(urlPathMatching("/v1/locks/.*/acquire")).willReturn(grantOf(leaseMillis)));
    server.stubFor(
        post(urlPathMatching("/v1/locks/.*/release")).willReturn(aResponse().withStatus(204)));
  }

  /** Renewals answer with a lease of {@code leaseMillis}, after {@code delay}. */
  private void stubRenew(long leaseMillis, Duration delay) {
    server.stubFor(
        post(urlPathMatching("/v1/locks/.*/renew"))
            .willReturn(grantOf(leaseMillis).withFixedDelay((int) delay.toMillis())));
  }

  private static ResponseDefinitionBuilder grantOf(long leaseMillis) {
    return json(200, LockServerStubs.grant("payout:acc-1", "s", 1, leaseMillis));
  }
}
