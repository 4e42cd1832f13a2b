package dev.fencepost.lockserver.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.lockserver.TestIdentities;
import dev.fencepost.lockserver.backend.postgres.PostgresLockServer;
import dev.fencepost.lockserver.http.LockServerClient.Response;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.logging.CapturedEvents;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Who may call what on the lock server (docs/security.md): each endpoint refuses a caller without a
 * token (401) and one without the role (403), serves the right role, and a refused call changes
 * nothing: the lock stays held by the same token, the session stays alive.
 */
class LockServerSecurityTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/lockdb/db.changelog-master.yaml");

  static ConfigurableApplicationContext server;
  static LockServerClient worker;
  static LockServerClient reconciler;
  static LockServerClient operator;
  static LockServerClient railProxy;
  static LockServerClient anonymous;

  @RegisterExtension final CapturedEvents events = new CapturedEvents();

  @BeforeAll
  static void start() {
    server = PostgresLockServer.start(lockdb);
    LockServerClient client = LockServerClient.of(server);
    worker = client.as(TestIdentities.as("worker-1", FencepostRole.PAYOUT_WORKER));
    reconciler = client.as(TestIdentities.as("reconciler", FencepostRole.RECONCILER));
    operator = client.as(TestIdentities.operator("ops-alice"));
    railProxy = client.as(TestIdentities.as("rail-proxy", FencepostRole.RAIL_PROXY));
    anonymous = client.anonymous();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** The calls a lock holder makes; each needs PAYOUT_WORKER or RECONCILER. */
  enum HolderCall {
    CREATE_SESSION,
    KEEPALIVE,
    CLOSE_SESSION,
    ACQUIRE,
    RENEW,
    RELEASE;

    Response send(LockServerClient client, Held held) {
      return switch (this) {
        case CREATE_SESSION -> client.createSession("w", 60_000);
        case KEEPALIVE -> client.post("/v1/sessions/" + held.session() + "/keepalive", "");
        case CLOSE_SESSION -> client.delete("/v1/sessions/" + held.session());
        case ACQUIRE -> client.acquire("payout:other-" + UUID.randomUUID(), held.session(), 0);
        case RENEW -> client.renew(held.key(), held.session(), held.token());
        case RELEASE -> client.release(held.key(), held.session(), held.token());
      };
    }

    int success() {
      return switch (this) {
        case CREATE_SESSION -> 201;
        case CLOSE_SESSION, RELEASE -> 204;
        default -> 200;
      };
    }
  }

  record Held(String key, String session, long token) {}

  /** A lock held by a session of {@code holder}. */
  static Held held(LockServerClient holder) {
    String session = holder.newSession("holder");
    String key = "payout:sec-" + UUID.randomUUID();
    return new Held(key, session, holder.acquire(key, session, 0).token());
  }

  @ParameterizedTest
  @EnumSource(HolderCall.class)
  void withoutATokenEveryHolderCallIsUnauthenticatedAndChangesNothing(HolderCall call) {
    Held held = held(worker);
    Response refused = call.send(anonymous, held);
    assertThat(refused.status()).as(refused.body()).isEqualTo(401);
    assertThat(refused.code()).isEqualTo("UNAUTHENTICATED");
    assertThat(refused.contentType()).startsWith("application/problem+json");
    assertStillHeld(held);
  }

  @ParameterizedTest
  @EnumSource(HolderCall.class)
  void anIdentityWithoutAHolderRoleIsForbiddenAndChangesNothing(HolderCall call) {
    Held held = held(worker);
    for (LockServerClient notAHolder : List.of(operator, railProxy)) {
      Response refused = call.send(notAHolder, held);
      assertThat(refused.status()).as(refused.body()).isEqualTo(403);
      assertThat(refused.code()).isEqualTo("FORBIDDEN");
    }
    assertStillHeld(held);
  }

  @ParameterizedTest
  @EnumSource(HolderCall.class)
  void theReconcilerRoleIsServedLikeAWorker(HolderCall call) {
    Held held = held(reconciler);
    Response served = call.send(reconciler, held);
    assertThat(served.status()).as(served.body()).isEqualTo(call.success());
  }

  /**
   * ADR 0133: a caller with a holder role that did not create the session is refused every use of
   * it, and nothing changes: the lock keeps its token, and the session is not kept alive (its
   * expiry in lockdb does not move) nor closed. The creator is then served.
   *
   * <p>Negative control: this guards the {@code throw new SessionNotOwnedException(sessionId)} in
   * {@code LockService.requireOwner}. Were that check a no-op, every intruder call below would be
   * served (200/204) instead of 403, and keepalive would move the session's expiry, close would end
   * the session and release would free the lock, which the assertions after it detect.
   */
  @ParameterizedTest
  @EnumSource(
      value = HolderCall.class,
      names = {"KEEPALIVE", "CLOSE_SESSION", "ACQUIRE", "RENEW", "RELEASE"})
  void anotherHolderCannotUseASessionItDidNotCreateAndChangesNothing(HolderCall call) {
    Held held = held(worker);
    OffsetDateTime expiresBefore = sessionExpiresAt(held.session());
    LockServerClient otherWorker =
        worker.as(TestIdentities.as("worker-2", FencepostRole.PAYOUT_WORKER));

    for (LockServerClient intruder : List.of(otherWorker, reconciler)) {
      Response refused = call.send(intruder, held);
      assertThat(refused.status()).as(refused.body()).isEqualTo(403);
      assertThat(refused.code()).isEqualTo("SESSION_NOT_OWNED");
      assertThat(refused.contentType()).startsWith("application/problem+json");
    }

    assertThat(sessionExpiresAt(held.session())).isEqualTo(expiresBefore);
    assertThat(events.named("lock.session.not_owner"))
        .extracting(e -> e.get("principal"))
        .containsExactly("worker-2", "reconciler");
    assertThat(events.named("lock.session.not_owner"))
        .allSatisfy(
            e -> {
              assertThat(e.get("sessionPrincipal")).isEqualTo("worker-1");
              assertThat(e.get("sessionId")).isEqualTo(held.session());
            });
    assertStillHeld(held);

    Response byCreator = call.send(worker, held);
    assertThat(byCreator.status()).as(byCreator.body()).isEqualTo(call.success());
  }

  @Test
  void theCreatorsPrincipalIsRecordedWithTheSession() {
    Held held = held(worker);
    assertThat(
            JdbcClient.create(lockdb.dataSource())
                .sql("SELECT principal FROM lock_session WHERE id = ?::uuid")
                .param(held.session())
                .query(String.class)
                .single())
        .isEqualTo("worker-1");
  }

  /**
   * A session from before lockdb 002 records no principal: any holder may use it until it ends (ADR
   * 0133), so a rolling upgrade does not strand live sessions.
   */
  @Test
  void aSessionWithoutARecordedPrincipalIsUsableByAnyHolder() {
    String legacy = UUID.randomUUID().toString();
    JdbcClient.create(lockdb.dataSource())
        .sql(
            """
            INSERT INTO lock_session (id, owner, ttl_millis, expires_at)
            VALUES (?::uuid, 'legacy', 60000, now() + interval '60 seconds')
            """)
        .param(legacy)
        .update();

    Response acquired = reconciler.acquire("payout:legacy-" + UUID.randomUUID(), legacy, 0);
    assertThat(acquired.status()).as(acquired.body()).isEqualTo(200);
    assertThat(worker.post("/v1/sessions/" + legacy + "/keepalive", "").status()).isEqualTo(200);
    assertThat(events.named("lock.session.not_owner")).isEmpty();
  }

  @Test
  void inspectionNeedsAnIdentityAndShowsTheSessionIdToOperatorsOnly() {
    Held held = held(worker);
    String path = "/v1/locks/" + held.key();

    assertThat(anonymous.get(path).status()).isEqualTo(401);
    Response asProxy = railProxy.get(path);
    assertThat(asProxy.status()).isEqualTo(200);
    assertThat(asProxy.json().get("owner").asString()).isEqualTo("holder");
    assertThat(asProxy.json().get("principal").asString()).isEqualTo("worker-1");
    assertThat(asProxy.json().get("token").asLong()).isEqualTo(held.token());
    assertThat(asProxy.json().get("sessionId").isNull()).isTrue();
    assertThat(operator.get(path).json().get("sessionId").asString()).isEqualTo(held.session());
  }

  @Test
  void onlyAnOperatorRevokesAndTheAuditNamesTheTokensSubject() {
    Held held = held(worker);
    String revoke = "/v1/admin/locks/" + held.key() + "/revoke";

    assertThat(anonymous.post(revoke, "{\"reason\":\"r\"}").status()).isEqualTo(401);
    assertThat(worker.post(revoke, "{\"reason\":\"r\"}").status()).isEqualTo(403);
    assertThat(reconciler.post(revoke, "{\"reason\":\"r\"}").status()).isEqualTo(403);
    assertStillHeld(held);
    assertThat(audit(held.key())).isEmpty();

    Response revoked = operator.post(revoke, "{\"reason\":\"holder stuck\"}");
    assertThat(revoked.status()).as(revoked.body()).isEqualTo(200);
    assertThat(revoked.json().get("revokedToken").asLong()).isEqualTo(held.token());
    assertThat(audit(held.key())).containsExactly("ops-alice");
  }

  @Test
  void aBodyOperatorOtherThanTheCallerIsRefusedAndTheSameOneIsAccepted() {
    Held held = held(worker);
    String revoke = "/v1/admin/locks/" + held.key() + "/revoke";

    Response impersonating =
        operator.post(revoke, "{\"operator\":\"ops-bob\",\"reason\":\"blame bob\"}");
    assertThat(impersonating.status()).isEqualTo(400);
    assertThat(impersonating.code()).isEqualTo("INVALID_REQUEST");
    assertStillHeld(held);
    assertThat(audit(held.key())).isEmpty();

    Response itself = operator.post(revoke, "{\"operator\":\"ops-alice\",\"reason\":\"stuck\"}");
    assertThat(itself.status()).isEqualTo(200);
    assertThat(audit(held.key())).containsExactly("ops-alice");
  }

  @Test
  void healthIsOpenOnTheManagementPortAndOtherManagementEndpointsNeedAnOperator() {
    LockServerClient management = LockServerClient.managementOf(server);
    assertThat(management.anonymous().get("/actuator/health").status()).isEqualTo(200);
    assertThat(management.anonymous().get("/actuator/prometheus").status()).isEqualTo(200);
    assertThat(management.anonymous().get("/actuator/metrics").status()).isEqualTo(401);
    LockServerClient asWorker =
        management.as(TestIdentities.as("worker-1", FencepostRole.PAYOUT_WORKER));
    assertThat(asWorker.get("/actuator/metrics").status()).isEqualTo(403);
    assertThat(
            management.as(TestIdentities.operator("ops-alice")).get("/actuator/metrics").status())
        .isEqualTo(200);
  }

  @Test
  void theApplicationPortServesNoManagementEndpoint() {
    assertThat(anonymous.get("/actuator/health").status()).isEqualTo(401);
    assertThat(operator.get("/actuator/health").status()).isIn(403, 404);
  }

  @Test
  void aForgedTokenIsUnauthenticated() {
    Held held = held(worker);
    LockServerClient forger =
        anonymous.as(() -> TestIdentities.ISSUER.forged("worker-1", FencepostRole.PAYOUT_WORKER));
    assertThat(HolderCall.RELEASE.send(forger, held).status()).isEqualTo(401);
    assertStillHeld(held);
  }

  private static void assertStillHeld(Held held) {
    Response info = operator.get("/v1/locks/" + held.key());
    assertThat(info.json().get("held").asBoolean()).isTrue();
    assertThat(info.json().get("token").asLong()).isEqualTo(held.token());
    assertThat(info.json().get("sessionId").asString()).isEqualTo(held.session());
    assertThat(worker.post("/v1/sessions/" + held.session() + "/keepalive", "").status())
        .isEqualTo(200);
  }

  private static OffsetDateTime sessionExpiresAt(String session) {
    return JdbcClient.create(lockdb.dataSource())
        .sql("SELECT expires_at FROM lock_session WHERE id = ?::uuid")
        .param(session)
        .query(OffsetDateTime.class)
        .single();
  }

  private static List<String> audit(String key) {
    return JdbcClient.create(lockdb.dataSource())
        .sql("SELECT operator FROM lock_audit WHERE lock_key = ? ORDER BY id")
        .param(key)
        .query(String.class)
        .list();
  }
}
