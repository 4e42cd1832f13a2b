package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.launcher.LocalTls;
import dev.fencepost.launcher.etcd.EtcdCredentials;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lockserver.backend.BackendUnavailableException;
import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.lockserver.http.LockServerClient.Response;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import dev.fencepost.testsupport.logging.CapturedEvents;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Who may reach a secured etcd and what each may do (ADR 0158): only a client that trusts etcd's
 * CA, presents a client certificate from it and authenticates as an etcd user gets in, and that
 * user reaches only the keys its role names. Every refusal is the backend's "unavailable" (the lock
 * server's 503 BACKEND_UNAVAILABLE, clients fail closed), never a grant and never a 500.
 */
@Tag("FR-09")
class EtcdTlsAndAuthenticationTest {

  private static final String PREFIX = "/secured-access/";
  private static final Duration LONG_TTL = Duration.ofSeconds(60);

  @RegisterExtension
  static EtcdClusterExtension etcd = EtcdClusterExtension.securedSingleMember(PREFIX);

  @RegisterExtension CapturedEvents events = new CapturedEvents();

  private static EtcdLockBackend backend(Client client) {
    return new EtcdLockBackend(
        client,
        PREFIX,
        EtcdFailover.CALL_TIMEOUT,
        EtcdSecured.OPERATION_TIMEOUT,
        Clock.systemUTC());
  }

  private static LockKey freshKey() {
    return LockKey.of("secured:" + UUID.randomUUID());
  }

  private static ByteSequence bytes(String value) {
    return ByteSequence.from(value, StandardCharsets.UTF_8);
  }

  /** etcd's current revision, as root sees it. */
  private static long revision() throws Exception {
    try (Client admin = etcd.cluster().adminClient()) {
      return admin
          .getKVClient()
          .get(bytes(PREFIX), GetOption.builder().withCountOnly(true).build())
          .get(10, TimeUnit.SECONDS)
          .getHeader()
          .getRevision();
    }
  }

  /** How many keys under {@code prefix} were created after {@code revision}, as root sees it. */
  private static long keysCreatedSince(String prefix, long revision) throws Exception {
    try (Client admin = etcd.cluster().adminClient()) {
      return admin
          .getKVClient()
          .get(
              bytes(prefix),
              GetOption.builder()
                  .isPrefix(true)
                  .withMinCreateRevision(revision + 1)
                  .withKeysOnly(true)
                  .build())
          .get(10, TimeUnit.SECONDS)
          // Not getCount(): etcd counts the whole range, before the revision filter.
          .getKvs()
          .size();
    }
  }

  private static void assertRefused(EtcdBackendProperties properties) throws Exception {
    long before = revision();
    try (Client client = EtcdClients.create(properties)) {
      assertThatThrownBy(() -> backend(client).createSession("worker-1", LONG_TTL))
          .isInstanceOf(BackendUnavailableException.class);
    }
    assertThat(keysCreatedSince(PREFIX, before)).as("keys written").isZero();
  }

  @Test
  void theLockServersUserWithItsCertificateCreatesSessionsAndAcquires() {
    try (Client client =
        EtcdClients.create(
            EtcdSecured.properties(etcd.cluster(), PREFIX, etcd.lockServerCredentials()))) {
      EtcdLockBackend backend = backend(client);
      SessionId session = backend.createSession("worker-1", LONG_TTL).sessionId();
      assertThat(backend.acquire(freshKey(), session, Duration.ZERO).token().value()).isPositive();
    }
  }

  @Test
  void aClientThatDoesNotTrustEtcdsCaIsRefused(@TempDir Path otherRun) throws Exception {
    EtcdCredentials credentials = etcd.lockServerCredentials();
    Path otherCa = LocalTls.generate(otherRun).caFile();

    assertRefused(
        EtcdSecured.properties(
            etcd.cluster(),
            PREFIX,
            EtcdSecured.trusting(otherCa, credentials),
            credentials.user(),
            credentials.password()));
  }

  @Test
  void aClientWithoutAClientCertificateIsRefused() throws Exception {
    EtcdCredentials credentials = etcd.lockServerCredentials();

    assertRefused(
        EtcdSecured.properties(
            etcd.cluster(),
            PREFIX,
            EtcdSecured.withoutClientCertificate(credentials),
            credentials.user(),
            credentials.password()));
  }

  @Test
  void aWrongPasswordIsRefusedAndLoggedAsAccessDenied() throws Exception {
    EtcdCredentials credentials = etcd.lockServerCredentials();

    assertRefused(
        EtcdSecured.properties(
            etcd.cluster(),
            PREFIX,
            credentials.withUser(credentials.user(), credentials.password() + "-wrong")));
    assertThat(events.named("lock.etcd.access_denied")).isNotEmpty();
  }

  @Test
  void theClientCertificateAloneIsNoEtcdUserAndReachesNoKey() throws Exception {
    EtcdCredentials credentials = etcd.lockServerCredentials();

    assertRefused(
        EtcdSecured.properties(
            etcd.cluster(),
            PREFIX,
            new EtcdBackendProperties.Tls(
                credentials.caFile(), credentials.certificateFile(), credentials.keyFile(), null),
            null,
            null));
  }

  @Test
  void aUserWhoseRoleLacksTheLockPrefixCannotAcquire() throws Exception {
    EtcdCredentials noLocks =
        etcd.cluster().addUser("no-locks", PREFIX + "sessions/", PREFIX + "waiters/");
    long before = revision();
    try (Client client =
        EtcdClients.create(EtcdSecured.properties(etcd.cluster(), PREFIX, noLocks))) {
      EtcdLockBackend backend = backend(client);
      SessionId session = backend.createSession("worker-1", LONG_TTL).sessionId();

      assertThatThrownBy(() -> backend.acquire(freshKey(), session, Duration.ZERO))
          .isInstanceOf(BackendUnavailableException.class)
          .hasMessageContaining("etcd refused")
          .hasMessageContaining("PERMISSION_DENIED");
    }
    assertThat(keysCreatedSince(PREFIX + "locks/", before)).as("grants written").isZero();
    assertThat(events.named("lock.etcd.access_denied")).isNotEmpty();
  }

  @Test
  void aUserWhoseRoleLacksTheAuditPrefixCannotRevokeAndTheGrantStands() throws Exception {
    EtcdCredentials noAudit =
        etcd.cluster()
            .addUser("no-audit", PREFIX + "sessions/", PREFIX + "waiters/", PREFIX + "locks/");
    long before = revision();
    try (Client client =
        EtcdClients.create(EtcdSecured.properties(etcd.cluster(), PREFIX, noAudit))) {
      EtcdLockBackend backend = backend(client);
      SessionId session = backend.createSession("worker-1", LONG_TTL).sessionId();
      LockKey key = freshKey();
      LockGrant grant = backend.acquire(key, session, Duration.ZERO);

      assertThatThrownBy(() -> backend.revoke(key, "operator-1", "drill"))
          .isInstanceOf(BackendUnavailableException.class)
          .hasMessageContaining("PERMISSION_DENIED");
      assertThatThrownBy(() -> backend.revoke(freshKey(), "operator-1", "drill"))
          .as("the audit record of a free key's revoke")
          .isInstanceOf(BackendUnavailableException.class);

      assertThat(backend.inspect(key).token()).isEqualTo(grant.token());
    }
    assertThat(keysCreatedSince(PREFIX + "audit/", before)).as("audit records").isZero();
  }

  @Test
  void overHttpWhatEtcdRefusesIs503BackendUnavailableNeverA500() throws Exception {
    // Creating a session also counts the held keys (the capacity bounds): a role without the
    // lock prefix fails there already.
    EtcdCredentials noLocks =
        etcd.cluster().addUser("http-no-locks", PREFIX + "sessions/", PREFIX + "waiters/");
    try (ConfigurableApplicationContext server =
        EtcdLockServer.start(
            etcd.endpoints(), PREFIX, EtcdSecured.args(etcd.cluster(), PREFIX, noLocks))) {
      Response session = LockServerClient.of(server).createSession("worker-1", 60_000);

      assertThat(session.status()).isEqualTo(503);
      assertThat(session.code()).isEqualTo("BACKEND_UNAVAILABLE");
      assertThat(session.contentType()).startsWith("application/problem+json");
    }
  }

  @Test
  void overHttpARevokeWhoseAuditRecordEtcdRefusesIs503AndTheHolderKeepsTheKey() throws Exception {
    EtcdCredentials noAudit =
        etcd.cluster()
            .addUser("http-no-audit", PREFIX + "sessions/", PREFIX + "waiters/", PREFIX + "locks/");
    try (ConfigurableApplicationContext server =
        EtcdLockServer.start(
            etcd.endpoints(), PREFIX, EtcdSecured.args(etcd.cluster(), PREFIX, noAudit))) {
      LockServerClient client = LockServerClient.of(server);
      String session = client.newSession("worker-1");
      String key = "payout:" + UUID.randomUUID();
      long token = client.acquire(key, session, 0).token();

      Response revoke = client.revoke(key, "oncall-jane", "drill");

      assertThat(revoke.status()).isEqualTo(503);
      assertThat(revoke.code()).isEqualTo("BACKEND_UNAVAILABLE");
      assertThat(revoke.contentType()).startsWith("application/problem+json");
      assertThat(client.get("/v1/locks/" + key).json().get("token").asLong()).isEqualTo(token);
    }
  }

  @Test
  void aTokenEtcdForgotCostsTheBackendNoErrorItsNextCallFetchesAFreshOne() {
    EtcdCredentials credentials = etcd.lockServerCredentials();
    try (Client client =
        EtcdClients.create(EtcdSecured.properties(etcd.cluster(), PREFIX, credentials))) {
      EtcdLockBackend backend = backend(client);
      SessionId session = backend.createSession("worker-1", LONG_TTL).sessionId();
      LockKey key = freshKey();

      // As after a password rotation or an idle token's expiry: etcd no longer knows the token.
      etcd.cluster().invalidateTokens(credentials);
      LockGrant grant = backend.acquire(key, session, Duration.ZERO);
      etcd.cluster().invalidateTokens(credentials);
      // Release is a call made once (never repeated blindly); a refused token applied nothing.
      backend.release(key, session, grant.token());

      assertThat(backend.inspect(key).held()).isFalse();
    }
  }

  /**
   * A keepalive stream opened with a token etcd has forgotten still keeps the session alive. etcd
   * 3.4 checks no token on keepalives; an etcd that refuses the stream instead has the stream drop
   * the token (as jetcd does on its own calls) and the retry authenticate again (ADR 0228).
   */
  @Test
  void aKeepaliveStreamOpenedWithATokenEtcdForgotKeepsTheSessionAlive() {
    EtcdCredentials credentials = etcd.lockServerCredentials();
    try (Client client =
        EtcdClients.create(EtcdSecured.properties(etcd.cluster(), PREFIX, credentials))) {
      SessionId session = backend(client).createSession("worker-1", LONG_TTL).sessionId();

      etcd.cluster().invalidateTokens(credentials);
      EtcdLockBackend fresh = backend(client);

      assertThat(fresh.keepAlive(session).ttl()).isEqualTo(LONG_TTL);
    }
  }
}
