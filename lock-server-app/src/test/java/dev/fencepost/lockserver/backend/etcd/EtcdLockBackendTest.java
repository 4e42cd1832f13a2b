package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.NotHolderException;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lockserver.backend.BackendUnavailableException;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the etcd backend stores and how it uses etcd, read back from etcd itself: the parts of ADRs
 * 0010 and 0011 and FR-08/FR-10 that the backend-independent contract cannot see.
 */
@Tag("FR-10")
class EtcdLockBackendTest {

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.singleMember();

  private static final String PREFIX = "/backend-test/";
  private static Client client;
  private static EtcdLockBackend backend;

  @BeforeAll
  static void start() {
    client = EtcdFailover.client(etcd.cluster());
    backend = EtcdFailover.backend(client, PREFIX);
  }

  @AfterAll
  static void stop() {
    client.close();
  }

  private static LockKey freshKey() {
    return LockKey.of("payout:acc-" + UUID.randomUUID());
  }

  private static KeyValue read(String key) throws Exception {
    List<KeyValue> kvs =
        client
            .getKVClient()
            .get(ByteSequence.from(key, StandardCharsets.UTF_8))
            .get(10, TimeUnit.SECONDS)
            .getKvs();
    return kvs.isEmpty() ? null : kvs.get(0);
  }

  @Test
  void theTokenIsTheRevisionThatCreatedTheLockKeyAndRenewNeverWritesIt() throws Exception {
    LockKey key = freshKey();
    SessionId session = backend.createSession("alice", Duration.ofSeconds(30)).sessionId();

    LockGrant grant = backend.acquire(key, session, Duration.ZERO);
    backend.renew(key, session, grant.token());
    backend.keepAlive(session);
    backend.acquire(key, session, Duration.ZERO);

    KeyValue stored = read(PREFIX + "locks/" + key.value());
    assertThat(stored.getCreateRevision()).isEqualTo(grant.token().value());
    assertThat(stored.getModRevision()).isEqualTo(grant.token().value());
    assertThat(stored.getVersion()).as("writes to the key during the grant").isEqualTo(1);
    assertThat(Long.toHexString(stored.getLease())).isEqualTo(session.value());
    assertThat(stored.getValue().toString(StandardCharsets.UTF_8))
        .contains("\"owner\":\"alice\"")
        .contains("\"sessionId\":\"" + session.value() + "\"");
  }

  @Test
  void aSessionClosedThroughAnotherLockServerIsNotFoundEvenThoughThisServerRemembersIt() {
    EtcdLockBackend other = EtcdFailover.backend(client, PREFIX);
    SessionId session = backend.createSession("carol", Duration.ofSeconds(30)).sessionId();
    backend.acquire(freshKey(), session, Duration.ZERO);
    SessionId holder = other.createSession("holder", Duration.ofSeconds(30)).sessionId();
    LockKey held = freshKey();
    other.acquire(held, holder, Duration.ZERO);

    other.closeSession(session);

    // The free key fails on the lease; the held key on the session record, read in the same
    // revision as the failed compare.
    assertThatThrownBy(() -> backend.acquire(freshKey(), session, Duration.ZERO))
        .isInstanceOf(SessionNotFoundException.class);
    assertThatThrownBy(() -> backend.acquire(held, session, Duration.ZERO))
        .isInstanceOf(SessionNotFoundException.class);
    assertThatThrownBy(() -> backend.keepAlive(session))
        .isInstanceOf(SessionNotFoundException.class);
  }

  @Test
  void aSessionThisServerHasNotSeenIsReadFromEtcdAndAGrantNeverOutlivesItsLease() throws Exception {
    EtcdLockBackend other = EtcdFailover.backend(client, PREFIX);
    SessionId session = other.createSession("dave", Duration.ofSeconds(30)).sessionId();

    LockGrant first = backend.acquire(freshKey(), session, Duration.ZERO);
    backend.keepAlive(session);
    LockGrant second = backend.acquire(freshKey(), session, Duration.ZERO);

    assertThat(first.owner()).isEqualTo("dave");
    assertThat(second.owner()).isEqualTo("dave");
    long remaining =
        client
            .getLeaseClient()
            .timeToLive(Long.parseLong(session.value(), 16), LeaseOption.DEFAULT)
            .get(10, TimeUnit.SECONDS)
            .getTTL();
    // etcd counts whole seconds: its lease ends before now + remaining + 1 s.
    for (LockGrant grant : List.of(first, second)) {
      assertThat(grant.expiresAt()).isBefore(Instant.now().plusSeconds(remaining + 1));
    }
  }

  @Test
  void aSessionIsALeaseAndAskingForLessThanEtcdsMinimumTtlGetsTheMinimum() {
    SessionInfo session = backend.createSession("alice", Duration.ofMillis(500));

    assertThat(session.sessionId().value()).matches("[0-9a-f]{1,16}");
    assertThat(session.ttl()).isEqualTo(etcd.cluster().minimumLeaseTtl());
  }

  @Test
  void aRevokeDeletesTheKeyAndStoresItsAuditRecordInTheSameRevision() throws Exception {
    LockKey key = freshKey();
    SessionId session = backend.createSession("alice", Duration.ofSeconds(30)).sessionId();
    LockGrant grant = backend.acquire(key, session, Duration.ZERO);

    backend.revoke(key, "oncall-jane", "holder unreachable, INC-42");

    KeyValue audit =
        read(PREFIX + "audit/" + key.value() + "/" + String.format("%020d", grant.token().value()));
    assertThat(audit).isNotNull();
    assertThat(audit.getLease()).as("audit records are kept, not leased").isZero();
    assertThat(audit.getValue().toString(StandardCharsets.UTF_8))
        .contains("\"operator\":\"oncall-jane\"")
        .contains("\"reason\":\"holder unreachable, INC-42\"")
        .contains("\"revokedToken\":" + grant.token().value())
        .contains("\"revokedOwner\":\"alice\"");
    assertThat(read(PREFIX + "locks/" + key.value())).isNull();
    LockGrant next =
        backend.acquire(
            key, backend.createSession("bob", Duration.ofSeconds(30)).sessionId(), Duration.ZERO);
    assertThat(next.token().value()).isGreaterThan(audit.getModRevision());
  }

  @Test
  void aWaitingAcquireWatchesTheKeyInsteadOfPollingTheStore() throws Exception {
    LockKey key = freshKey();
    backend.acquire(
        key, backend.createSession("alice", Duration.ofSeconds(30)).sessionId(), Duration.ZERO);
    SessionId bob = backend.createSession("bob", Duration.ofSeconds(30)).sessionId();
    EtcdMember member = etcd.cluster().member(0);
    long before = EtcdServed.calls(member, "Txn");
    assertThat(before).as("etcd's Txn counter is readable").isPositive();

    assertThatThrownBy(() -> backend.acquire(key, bob, Duration.ofSeconds(2)))
        .isInstanceOf(LockNotAcquiredException.class);

    // One attempt before the wait and one at its deadline; a poller would have made dozens.
    assertThat(EtcdServed.calls(member, "Txn") - before).isLessThanOrEqualTo(3);
    long waiters =
        client
            .getKVClient()
            .get(
                ByteSequence.from(PREFIX + "waiters/", StandardCharsets.UTF_8),
                GetOption.builder().isPrefix(true).withCountOnly(true).build())
            .get(10, TimeUnit.SECONDS)
            .getCount();
    assertThat(waiters).isZero();
  }

  @Test
  void whileEtcdIsDownCallsFailClosedWithinTheOperationTimeoutAndTokensGoOnRisingAfter()
      throws Exception {
    LockKey key = freshKey();
    SessionId session = backend.createSession("alice", Duration.ofSeconds(60)).sessionId();
    LockGrant before = backend.acquire(key, session, Duration.ZERO);
    backend.release(key, session, before.token());
    EtcdMember member = etcd.cluster().member(0);

    member.kill();
    long start = System.nanoTime();
    try {
      assertThatThrownBy(() -> backend.acquire(key, session, Duration.ZERO))
          .isInstanceOf(BackendUnavailableException.class);
      // A generous bound: the point is that the call ends and fails closed, not its speed.
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isLessThan(EtcdFailover.OPERATION_TIMEOUT.plusSeconds(5));
    } finally {
      member.restart();
    }

    LockGrant after = backend.acquire(key, session, Duration.ZERO);
    assertThat(after.token()).isGreaterThan(before.token());
  }

  // --- Release in one transaction (ADR 0227) ---------------------------------------------

  /** The reads and transactions etcd answered while a release ran, by its own count. */
  private record Served(long reads, long txns) {}

  private interface Release {
    void run() throws Exception;
  }

  private static Served servedDuring(Release release) throws Exception {
    EtcdMember member = etcd.cluster().member(0);
    long reads = EtcdServed.calls(member, "Range");
    long txns = EtcdServed.calls(member, "Txn");
    release.run();
    return new Served(
        EtcdServed.calls(member, "Range") - reads, EtcdServed.calls(member, "Txn") - txns);
  }

  @Test
  void aReleaseOfAGrantThisServerMadeIsOneTransactionWithoutARead() throws Exception {
    LockKey key = freshKey();
    SessionId session = backend.createSession("alice", Duration.ofSeconds(30)).sessionId();
    LockGrant grant = backend.acquire(key, session, Duration.ZERO);

    Served served = servedDuring(() -> backend.release(key, session, grant.token()));

    assertThat(served.reads()).isZero();
    assertThat(served.txns()).isOne();
    assertThat(read(PREFIX + "locks/" + key.value())).isNull();
    assertThat(backend.grants().get(key, grant.token())).as("nothing left behind").isNull();
  }

  @Test
  void aReleaseThroughAServerThatDidNotGrantReadsTheKeyFirstAndReleasesAllTheSame()
      throws Exception {
    EtcdLockBackend other = EtcdFailover.backend(client, PREFIX);
    LockKey key = freshKey();
    SessionId session = backend.createSession("alice", Duration.ofSeconds(30)).sessionId();
    LockGrant grant = backend.acquire(key, session, Duration.ZERO);

    Served served = servedDuring(() -> other.release(key, session, grant.token()));

    assertThat(served.reads()).isOne();
    assertThat(served.txns()).isOne();
    assertThat(read(PREFIX + "locks/" + key.value())).isNull();
  }

  @Test
  void aServerThatHandsBackAnEarlierGrantToItsSessionReleasesItInOneTransaction() throws Exception {
    EtcdLockBackend other = EtcdFailover.backend(client, PREFIX);
    LockKey key = freshKey();
    SessionId session = backend.createSession("alice", Duration.ofSeconds(30)).sessionId();
    LockGrant grant = backend.acquire(key, session, Duration.ZERO);
    // The same session again, through a server that did not grant it: it reads the value back.
    assertThat(other.acquire(key, session, Duration.ZERO).token()).isEqualTo(grant.token());

    Served served = servedDuring(() -> other.release(key, session, grant.token()));

    assertThat(served.reads()).isZero();
    assertThat(read(PREFIX + "locks/" + key.value())).isNull();
  }

  @Test
  void theHoldersTokenFromAnotherSessionIsRefusedByTheServerThatGrantedItAndTheLockStays()
      throws Exception {
    LockKey key = freshKey();
    SessionId alice = backend.createSession("alice", Duration.ofSeconds(30)).sessionId();
    SessionId mallory = backend.createSession("mallory", Duration.ofSeconds(30)).sessionId();
    LockGrant grant = backend.acquire(key, alice, Duration.ZERO);

    assertThatThrownBy(() -> backend.release(key, mallory, grant.token()))
        .isInstanceOf(NotHolderException.class);

    KeyValue stored = read(PREFIX + "locks/" + key.value());
    assertThat(stored).isNotNull();
    assertThat(stored.getModRevision()).isEqualTo(grant.token().value());
    // The holder's own release still takes one transaction: the refusal left its memory alone.
    assertThat(servedDuring(() -> backend.release(key, alice, grant.token())).reads()).isZero();
    assertThat(read(PREFIX + "locks/" + key.value())).isNull();
  }

  @Test
  void aRememberedGrantIsNotReleasedOnceItsKeyWasReleasedElsewhereAndGrantedAgain()
      throws Exception {
    EtcdLockBackend other = EtcdFailover.backend(client, PREFIX);
    LockKey key = freshKey();
    SessionId alice = backend.createSession("alice", Duration.ofSeconds(30)).sessionId();
    SessionId bob = other.createSession("bob", Duration.ofSeconds(30)).sessionId();
    LockGrant first = backend.acquire(key, alice, Duration.ZERO);
    other.release(key, alice, first.token());
    LockGrant second = other.acquire(key, bob, Duration.ZERO);

    // This instance still remembers the first grant; etcd's compare on the token refuses it.
    assertThat(backend.grants().get(key, first.token())).isNotNull();
    assertThatThrownBy(() -> backend.release(key, alice, first.token()))
        .isInstanceOf(NotHolderException.class);

    assertThat(read(PREFIX + "locks/" + key.value()).getModRevision())
        .isEqualTo(second.token().value());
    assertThat(backend.grants().get(key, first.token())).isNull();
  }

  @Test
  void aWrongMemoryOfTheValueWrittenReleasesNothingBecauseEtcdComparesTheValue() throws Exception {
    LockKey key = freshKey();
    SessionId alice = backend.createSession("alice", Duration.ofSeconds(30)).sessionId();
    SessionId mallory = backend.createSession("mallory", Duration.ofSeconds(30)).sessionId();
    LockGrant grant = backend.acquire(key, alice, Duration.ZERO);
    // As if this instance had remembered mallory at alice's token: only etcd's compare of the
    // value stands between that memory and alice's lock.
    backend
        .grants()
        .remember(
            key,
            grant.token(),
            mallory,
            EtcdValues.write(
                new EtcdValues.Grant("mallory", mallory.value(), Instant.EPOCH.toString())));

    assertThatThrownBy(() -> backend.release(key, mallory, grant.token()))
        .isInstanceOf(NotHolderException.class);

    assertThat(read(PREFIX + "locks/" + key.value()).getModRevision())
        .isEqualTo(grant.token().value());
  }

  @Test
  void aGrantLeavesNothingInMemoryOnceRevoked() {
    LockKey key = freshKey();
    SessionId alice = backend.createSession("alice", Duration.ofSeconds(30)).sessionId();
    LockGrant grant = backend.acquire(key, alice, Duration.ZERO);
    assertThat(backend.grants().get(key, grant.token())).isNotNull();

    backend.revoke(key, "oncall-jane", "holder unreachable");

    assertThat(backend.grants().get(key, grant.token())).isNull();
  }
}
