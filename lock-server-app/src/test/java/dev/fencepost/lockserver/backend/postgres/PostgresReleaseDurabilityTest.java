package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockInfo;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.SessionId;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import dev.fencepost.testsupport.postgres.StoppedWalWriters;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A release commits without waiting for the WAL flush (ADR 0221), and these tests crash lockdb's
 * PostgreSQL (every process SIGKILLed, as a host crash) right after one. So that nothing but a
 * commit's own flush can write the release's WAL before the crash, the WAL writer and the
 * background writer are stopped (SIGSTOP, by PID; the server is this class's own) just before it.
 *
 * <p>What the change must keep: a release can be lost only while nobody can have been granted the
 * key after it, since that grant's flush writes the release too (INV-06, INV-04). What it costs: a
 * lost release gives the key back to its releaser, with the key's highest token still, until that
 * session takes the key again and releases it.
 */
@Tag("INV-04")
@Tag("INV-06")
class PostgresReleaseDurabilityTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog(PostgresBackends.LOCKDB_CHANGELOG).dedicatedServer();

  private static final Duration TTL = Duration.ofSeconds(60);

  private static HikariDataSource pool;
  private static PostgresBackends.Running running;

  /** The writers this test stopped; a crash kills them. */
  private StoppedWalWriters stopped;

  @BeforeAll
  static void start() {
    pool = lockdb.server().pool(lockdb.database().name(), 4);
    pool.setConnectionTimeout(1_000);
    running = PostgresBackends.start(pool);
  }

  @AfterAll
  static void stop() {
    running.close();
    pool.close();
  }

  @AfterEach
  void resumeWritersLeftStopped() {
    // A test that failed between the SIGSTOP and the crash leaves no stopped server behind.
    if (stopped != null) {
      stopped.close();
    }
  }

  @Test
  void aReleaseIsDurableBeforeAnyoneElseIsGrantedItsKey() {
    PostgresLockBackend backend = running.backend();
    SessionId releaser = backend.createSession("releaser", TTL).sessionId();
    SessionId other = backend.createSession("other", TTL).sessionId();
    LockKey key = LockKey.of("durable-" + UUID.randomUUID());
    LockGrant released = takenAndReleasedWithTheWritersStopped(key, releaser);

    LockGrant next = backend.acquire(key, other, Duration.ZERO);
    crashAndRecover();

    LockInfo after = backend.inspect(key);
    assertThat(after.sessionId()).as("the key's holder after the crash").isEqualTo(other);
    assertThat(after.token()).isEqualTo(next.token());
    assertThat(history(key))
        .containsExactly(
            "ACQUIRED " + released.token().value(),
            "RELEASED " + released.token().value(),
            "ACQUIRED " + next.token().value());
  }

  @Test
  void aReleaseLostToACrashGivesTheKeyBackToItsReleaserAloneUntilItTakesAndReleasesItAgain() {
    PostgresLockBackend backend = running.backend();
    SessionId releaser = backend.createSession("releaser", TTL).sessionId();
    SessionId other = backend.createSession("other", TTL).sessionId();
    LockKey key = LockKey.of("lost-" + UUID.randomUUID());
    LockGrant released = takenAndReleasedWithTheWritersStopped(key, releaser);

    assertThat(backend.inspect(key).held()).as("released before the crash").isFalse();
    crashAndRecover();

    LockInfo after = backend.inspect(key);
    assertThat(after.sessionId()).as("the key's holder after the crash").isEqualTo(releaser);
    assertThat(after.token()).isEqualTo(released.token());
    assertThatThrownBy(() -> backend.acquire(key, other, Duration.ZERO))
        .isInstanceOf(LockNotAcquiredException.class);

    // The releaser's next acquire is its own grant again: the same token, still the key's highest,
    // since no grant after it survived or was made.
    LockGrant again = backend.acquire(key, releaser, Duration.ZERO);
    assertThat(again.token()).isEqualTo(released.token());
    backend.release(key, releaser, again.token());
    LockGrant otherGrant = backend.acquire(key, other, Duration.ZERO);
    assertThat(otherGrant.token()).isGreaterThan(released.token());
    assertThat(history(key))
        .containsExactly(
            "ACQUIRED " + released.token().value(),
            "RELEASED " + released.token().value(),
            "ACQUIRED " + otherGrant.token().value());
  }

  /**
   * {@code session} takes {@code key} and releases it, with the WAL writer and the background
   * writer stopped in between: until the crash, only a synchronous commit's own flush writes the
   * WAL.
   */
  private LockGrant takenAndReleasedWithTheWritersStopped(LockKey key, SessionId session) {
    PostgresLockBackend backend = running.backend();
    LockGrant grant = backend.acquire(key, session, Duration.ZERO);
    stopped = StoppedWalWriters.stop(lockdb.dataSource());
    backend.release(key, session, grant.token());
    return grant;
  }

  /** SIGKILLs every PostgreSQL process, starts the server again and waits until lockdb answers. */
  private static void crashAndRecover() {
    lockdb.server().crash();
    lockdb.server().start();
    pool.getHikariPoolMXBean().softEvictConnections();
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> JdbcClient.create(pool).sql("SELECT 1").query(Integer.class).single() == 1);
  }

  /** The key's grant history, oldest first: "KIND token". */
  private static List<String> history(LockKey key) {
    return JdbcClient.create(lockdb.dataSource())
        .sql("SELECT kind || ' ' || token FROM lock_event WHERE lock_key = :key ORDER BY id")
        .param("key", key.value())
        .query(String.class)
        .list();
  }
}
