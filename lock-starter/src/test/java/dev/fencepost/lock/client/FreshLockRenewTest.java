package dev.fencepost.lock.client;

import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static dev.fencepost.lock.client.testing.LockServerStubs.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lock.client.testing.LockServerStubs;
import dev.fencepost.lock.client.testing.TestSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * When a freshly granted lock is renewed (ADR 0195). A grant rides on its session's lease, which
 * the backend does not extend on acquire. If that lease was extended within the last heartbeat, the
 * next tick renews the lock long before its deadline, so the client sends nothing extra: one renew
 * per acquired lock was a third of the lock server's requests in the payout benchmark. If the lease
 * is older than a heartbeat (a keepalive is late), the client renews at once.
 */
class FreshLockRenewTest {

  @RegisterExtension static WireMockExtension lockServer = LockServerStubs.server();

  private final List<DefaultLockClient> clients = new ArrayList<>();

  @AfterEach
  void closeClients() {
    clients.forEach(DefaultLockClient::close);
  }

  private DefaultLockClient client(Duration ttl, long grantLeaseMillis) {
    String key = "payout:acc-renew";
    lockServer.stubFor(
        post(urlPathEqualTo("/v1/sessions"))
            .willReturn(json(201, LockServerStubs.session("s-r", ttl.toMillis()))));
    lockServer.stubFor(
        post(urlPathEqualTo("/v1/sessions/s-r/keepalive"))
            .willReturn(json(200, LockServerStubs.session("s-r", ttl.toMillis()))));
    lockServer.stubFor(
        post(urlPathMatching("/v1/locks/.*/acquire"))
            .willReturn(json(200, LockServerStubs.grant(key, "s-r", 7, grantLeaseMillis))));
    lockServer.stubFor(
        post(urlPathMatching("/v1/locks/.*/renew"))
            .willReturn(json(200, LockServerStubs.grant(key, "s-r", 7, ttl.toMillis()))));
    DefaultLockClient client =
        new DefaultLockClient(
            TestSettings.against(lockServer.baseUrl())
                .owner("renewer")
                .ttl(ttl)
                .timeouts(Duration.ofMillis(500), Duration.ofMillis(800))
                .build(),
            LockClientMetrics.NOOP,
            List.of());
    clients.add(client);
    client.start();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> client.sessionStatus().state() == SessionStatus.State.CONNECTED);
    return client;
  }

  /** The paths the stand-in received after the acquire, in the order it received them. */
  private static List<String> pathsSinceAcquire() {
    List<ServeEvent> newestFirst = lockServer.getAllServeEvents();
    List<String> paths = new ArrayList<>();
    for (int i = newestFirst.size() - 1; i >= 0; i--) {
      paths.add(newestFirst.get(i).getRequest().getUrl());
    }
    int acquire = paths.size();
    for (int i = 0; i < paths.size(); i++) {
      if (paths.get(i).endsWith("/acquire")) {
        acquire = i;
        break;
      }
    }
    return paths.subList(acquire, paths.size()).stream().map(FreshLockRenewTest::kind).toList();
  }

  private static String kind(String path) {
    if (path.endsWith("/keepalive")) {
      return "keepalive";
    }
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private static boolean renewed() {
    return pathsSinceAcquire().contains("renew");
  }

  @Test
  void aLockOnASessionExtendedWithinTheLastHeartbeatIsRenewedByTheNextTickNotAtOnce() {
    // TTL 6 s, heartbeat 2 s: a lease of 5 s means the session was extended 1 s ago.
    DefaultLockClient client = client(Duration.ofSeconds(6), 5_000);

    try (HeldLock lock = client.acquire(LockKey.of("payout:acc-renew"), Duration.ZERO)) {
      await().atMost(Duration.ofSeconds(5)).until(FreshLockRenewTest::renewed);
      List<String> paths = pathsSinceAcquire();
      int renew = paths.indexOf("renew");

      assertThat(paths.subList(0, renew)).contains("keepalive");
      assertThat(lock.isHeld()).isTrue();
    }
  }

  @Test
  void aLockOnASessionLeaseOlderThanAHeartbeatIsRenewedAtOnce() {
    // TTL 30 s, heartbeat 10 s: a lease of 15 s means the last keepalive was 15 s ago, and the
    // next tick is up to 10 s away; the renew must not wait for it.
    DefaultLockClient client = client(Duration.ofSeconds(30), 15_000);

    try (HeldLock lock = client.acquire(LockKey.of("payout:acc-renew"), Duration.ZERO)) {
      await().atMost(Duration.ofSeconds(5)).until(FreshLockRenewTest::renewed);
      List<String> paths = pathsSinceAcquire();
      int renew = paths.indexOf("renew");

      assertThat(paths.subList(0, renew)).doesNotContain("keepalive");
      assertThat(lock.isHeld()).isTrue();
    }
  }
}
