package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.lockserver.backend.LockBackend;
import dev.fencepost.lockserver.history.GrantHistory;
import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.lockserver.http.LockServerClient.Response;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two lock servers (two Spring contexts of the real application, each with its own jetcd client) on
 * one 3-member etcd cluster are one lock service: the lock server keeps no state of its own, so a
 * client may reach either instance for any call (DESIGN section 2, FR-01, FR-05).
 */
class EtcdTwoLockServersTest {

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.threeMembers();

  private static final List<ConfigurableApplicationContext> servers = new ArrayList<>();
  private static LockServerClient a;
  private static LockServerClient b;

  @BeforeAll
  static void startTwoServers() {
    String[] members = etcd.endpoints().split(",");
    // Each instance lists the members in a different order, as two pods' configs might.
    a = start(String.join(",", members));
    b = start(members[2] + "," + members[1] + "," + members[0]);
  }

  @AfterAll
  static void stopServers() {
    servers.forEach(ConfigurableApplicationContext::close);
  }

  private static LockServerClient start(String endpoints) {
    ConfigurableApplicationContext server =
        LockServerApplication.application()
            .run(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--fencepost.lock.backend=etcd",
                "--fencepost.lock.etcd.endpoints=" + endpoints,
                "--fencepost.lock.etcd.key-prefix=/two-servers/",
                "--logging.structured.format.console=");
    servers.add(server);
    int port = ((WebServerApplicationContext) server).getWebServer().getPort();
    return new LockServerClient("http://127.0.0.1:" + port);
  }

  private static String key() {
    return "payout:two-" + UUID.randomUUID();
  }

  @Test
  void eachInstanceRunsOnEtcdAloneWithoutAnyDatabase() {
    for (ConfigurableApplicationContext server : servers) {
      assertThat(server.getBean(LockBackend.class)).isInstanceOf(EtcdLockBackend.class);
      assertThat(server.getBeanNamesForType(DataSource.class)).isEmpty();
    }
  }

  @Test
  void aKeyHeldThroughOneInstanceIsHeldThroughTheOther() {
    String alice = a.newSession("alice");
    String bob = b.newSession("bob");
    String key = key();
    long token = a.acquire(key, alice, 0).token();

    Response refused = b.acquire(key, bob, 0);

    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.code()).isEqualTo("LOCK_HELD");
    Response seen = b.get("/v1/locks/" + key);
    assertThat(seen.json().get("owner").asString()).isEqualTo("alice");
    assertThat(seen.json().get("token").asLong()).isEqualTo(token);
  }

  @Test
  void theHolderGetsItsSameTokenThroughTheOtherInstanceAndMayRenewAndReleaseThere() {
    String alice = a.newSession("alice");
    String key = key();
    long token = a.acquire(key, alice, 0).token();

    Response again = b.acquire(key, alice, 0);
    Response renewed = b.renew(key, alice, token);
    Response released = b.release(key, alice, token);

    assertThat(again.status()).isEqualTo(200);
    assertThat(again.token()).isEqualTo(token);
    assertThat(renewed.status()).isEqualTo(200);
    assertThat(renewed.token()).isEqualTo(token);
    assertThat(released.status()).isEqualTo(204);
    assertThat(a.get("/v1/locks/" + key).json().get("held").asBoolean()).isFalse();
    assertThat(a.acquire(key, a.newSession("carol"), 0).token()).isGreaterThan(token);
  }

  @Test
  void aWaiterOnOneInstanceIsWokenByAReleaseOnTheOther() throws Exception {
    String alice = a.newSession("alice");
    String bob = b.newSession("bob");
    String key = key();
    long token = a.acquire(key, alice, 0).token();

    CompletableFuture<Response> waiting =
        CompletableFuture.supplyAsync(() -> b.acquire(key, bob, 20_000));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> a.get("/v1/locks/" + key).json().get("waiters").asInt() == 1);
    assertThat(a.release(key, alice, token).status()).isEqualTo(204);

    Response granted = waiting.get(15, TimeUnit.SECONDS);
    assertThat(granted.status()).isEqualTo(200);
    assertThat(granted.json().get("sessionId").asString()).isEqualTo(bob);
    assertThat(granted.token()).isGreaterThan(token);
  }

  @Test
  void aRevokeOrASessionCloseOnOneInstanceTakesEffectOnTheOther() {
    String alice = a.newSession("alice");
    String key1 = key();
    String key2 = key();
    long token1 = a.acquire(key1, alice, 0).token();
    a.acquire(key2, alice, 0);

    assertThat(b.revoke(key1, "oncall-jane", "drill").json().get("revokedToken").asLong())
        .isEqualTo(token1);
    Response lost = a.renew(key1, alice, token1);
    assertThat(lost.code()).isEqualTo("LOCK_LOST");
    assertThat(lost.json().get("reason").asString()).isEqualTo("REVOKED");

    assertThat(b.delete("/v1/sessions/" + alice).status()).isEqualTo(204);
    assertThat(a.get("/v1/locks/" + key2).json().get("held").asBoolean()).isFalse();
    assertThat(a.post("/v1/sessions/" + alice + "/keepalive", "").status()).isEqualTo(404);
  }

  @Test
  void clientsSpreadOverBothInstancesNeverHoldAKeyTogether() throws Exception {
    List<String> keys = List.of(key(), key(), key());
    GrantHistory history = new GrantHistory();
    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    ExecutorService clients = Executors.newFixedThreadPool(4);
    try {
      List<CompletableFuture<Void>> runs = new ArrayList<>();
      for (int c = 0; c < 4; c++) {
        LockServerClient via = c % 2 == 0 ? a : b;
        String name = "client-" + c;
        runs.add(
            CompletableFuture.runAsync(
                () -> contend(via, name, keys, 60, history, problems), clients));
      }
      CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
    } finally {
      clients.shutdownNow();
    }

    assertThat(problems).isEmpty();
    assertThat(history.size()).isGreaterThan(50);
    assertThat(history.overlaps()).isEmpty();
    assertThat(history.tokenRegressions()).isEmpty();
  }

  /** One client: acquire (waiting a little), release, {@code rounds} times over random keys. */
  private static void contend(
      LockServerClient via,
      String name,
      List<String> keys,
      int rounds,
      GrantHistory history,
      ConcurrentLinkedQueue<String> problems) {
    String session = via.newSession(name);
    for (int i = 0; i < rounds; i++) {
      String key = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
      long invoked = System.nanoTime();
      Response grant = via.acquire(key, session, 2_000);
      long completed = System.nanoTime();
      if (grant.status() == 409) {
        continue;
      }
      if (grant.status() != 200) {
        problems.add(name + " acquire " + grant.status() + " " + grant.body());
        continue;
      }
      long releaseInvoked = System.nanoTime();
      Response released = via.release(key, session, grant.token());
      if (released.status() != 204) {
        problems.add(name + " release " + released.status() + " " + released.body());
      }
      history.record(
          new GrantHistory.Grant(key, grant.token(), name, invoked, completed, releaseInvoked));
    }
  }
}
