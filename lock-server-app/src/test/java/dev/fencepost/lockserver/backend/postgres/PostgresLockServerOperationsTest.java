package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.lockserver.http.LockServerClient.Response;
import dev.fencepost.testsupport.logging.CapturedEvents;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What operators and the platform rely on beyond the contract: the service is stateless (two
 * instances on one lockdb are one service), revoke leaves an audit row, an event and a counter
 * (FR-08, FR-30), and a restart of the whole service gives live sessions one TTL of grace.
 */
class PostgresLockServerOperationsTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/lockdb/db.changelog-master.yaml");

  /** Started after each server, because Spring Boot re-initialises logging when it starts. */
  private final CapturedEvents events = new CapturedEvents();

  private ConfigurableApplicationContext first;
  private ConfigurableApplicationContext second;

  @AfterEach
  void stopServers() {
    events.stop();
    if (first != null) {
      first.close();
    }
    if (second != null) {
      second.close();
    }
  }

  private ConfigurableApplicationContext startServer(String... extra) {
    List<String> args = new ArrayList<>(List.of("--fencepost.lock.postgres.beacon-interval=200ms"));
    args.addAll(List.of(extra));
    ConfigurableApplicationContext server =
        PostgresLockServer.start(lockdb, args.toArray(String[]::new));
    events.stop();
    events.start();
    return server;
  }

  private static LockServerClient client(ConfigurableApplicationContext server) {
    int port = ((WebServerApplicationContext) server).getWebServer().getPort();
    return new LockServerClient("http://127.0.0.1:" + port);
  }

  @Test
  void twoInstancesOnOneLockdbBehaveAsOneService() {
    first = startServer();
    second = startServer();
    LockServerClient a = client(first);
    LockServerClient b = client(second);
    String key = "payout:acc-" + UUID.randomUUID();
    String alice = a.newSession("alice");
    String bob = b.newSession("bob");

    long token = a.acquire(key, alice, 0).token();

    assertThat(b.acquire(key, bob, 0).code()).isEqualTo("LOCK_HELD");
    assertThat(b.acquire(key, alice, 0).token()).isEqualTo(token);
    assertThat(b.post("/v1/sessions/" + alice + "/keepalive", "").status()).isEqualTo(200);
    assertThat(b.renew(key, alice, token).token()).isEqualTo(token);
    assertThat(b.release(key, alice, token).status()).isEqualTo(204);
    assertThat(a.acquire(key, bob, 0).token()).isGreaterThan(token);
  }

  @Test
  void aWaiterOnOneInstanceIsWokenByAReleaseOnTheOther() throws Exception {
    first = startServer();
    second = startServer();
    LockServerClient a = client(first);
    LockServerClient b = client(second);
    String key = "payout:acc-" + UUID.randomUUID();
    String alice = a.newSession("alice");
    long token = a.acquire(key, alice, 0).token();
    String bob = b.newSession("bob");

    var waiting =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> b.acquire(key, bob, 20_000));
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> a.get("/v1/locks/" + key).json().get("waiters").asInt() == 1);
    a.release(key, alice, token);

    Response granted = waiting.get(15, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(granted.status()).isEqualTo(200);
    assertThat(granted.token()).isGreaterThan(token);
  }

  @Test
  @Tag("FR-08")
  @Tag("FR-30")
  @Tag("NFR-08")
  @Tag("NFR-13")
  @Tag("UC-06")
  void revokeWritesAnAuditRowAnEventForTheAlertAndCountsIt() {
    first = startServer();
    LockServerClient a = client(first);
    String key = "payout:acc-" + UUID.randomUUID();
    String session = a.newSession("worker-7");
    long token = a.acquire(key, session, 0).token();

    a.revoke(key, "oncall-jane", "holder unreachable, INC-42");

    Map<String, Object> audit =
        JdbcClient.create(lockdb.dataSource())
            .sql("SELECT * FROM lock_audit WHERE lock_key = :k")
            .param("k", key)
            .query()
            .singleRow();
    assertThat(audit)
        .containsEntry("action", "REVOKE")
        .containsEntry("operator", "oncall-jane")
        .containsEntry("reason", "holder unreachable, INC-42")
        .containsEntry("revoked_token", token)
        .containsEntry("revoked_owner", "worker-7");
    assertThat(events.named("lock.revoked"))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e)
                    .containsEntry("key", key)
                    .containsEntry("operator", "oncall-jane")
                    .containsEntry("revokedToken", token)
                    .containsEntry("alert", true));
    assertThat(LockServerClient.managementOf(first).get("/actuator/prometheus").body())
        .containsPattern("fencepost_lock_revokes_total\\{[^}]*\\} 1\\.0");
  }

  @Test
  @Tag("FR-30")
  @Tag("NFR-13")
  void theAuditTrailCannotBeRewritten() {
    first = startServer();
    LockServerClient a = client(first);
    String key = "payout:acc-" + UUID.randomUUID();
    a.revoke(key, "oncall-jane", "drill");
    JdbcClient jdbc = JdbcClient.create(lockdb.dataSource());

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                jdbc.sql("UPDATE lock_audit SET operator = 'someone-else' WHERE lock_key = :k")
                    .param("k", key)
                    .update())
        .rootCause()
        .hasMessageContaining("append-only");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> jdbc.sql("DELETE FROM lock_audit WHERE lock_key = :k").param("k", key).update())
        .rootCause()
        .hasMessageContaining("append-only");
  }

  @Test
  @Tag("UC-08")
  void afterTheWholeServiceWasDownLongerThanATtlLiveSessionsGetOneTtlOfGrace() {
    first = startServer();
    LockServerClient a = client(first);
    String key = "payout:acc-" + UUID.randomUUID();
    Response session = a.createSession("worker-1", 2_000);
    String id = session.json().get("sessionId").asString();
    long token = a.acquire(key, id, 0).token();

    first.close();
    first = null;
    // The only instance is gone; wait (by the database clock) until the session's TTL has passed.
    JdbcClient jdbc = JdbcClient.create(lockdb.dataSource());
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                jdbc.sql("SELECT expires_at < now() FROM lock_session WHERE id = :id::uuid")
                    .param("id", id)
                    .query(Boolean.class)
                    .single());

    second = startServer();
    LockServerClient b = client(second);

    assertThat(b.post("/v1/sessions/" + id + "/keepalive", "").status()).isEqualTo(200);
    // Expired by the database clock before the restart, alive after it: that is the grace.
    assertThat(b.renew(key, id, token).token()).isEqualTo(token);
  }

  @Test
  @Tag("INV-04")
  void aTokenFloorGivenAtStartIsAppliedBeforeTheFirstGrant() {
    first = startServer("--fencepost.lock.postgres.token-floor=5000000");
    LockServerClient a = client(first);

    long token = a.acquire("payout:acc-" + UUID.randomUUID(), a.newSession("w"), 0).token();

    assertThat(token).isGreaterThan(5_000_000);
  }
}
