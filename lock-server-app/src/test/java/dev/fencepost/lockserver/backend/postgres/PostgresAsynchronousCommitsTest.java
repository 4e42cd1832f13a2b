package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Which lockdb writes commit without waiting for a WAL flush: a waiting acquire's {@code
 * lock_waiter} row, which serves inspection alone (ADR 0213), and a release, which the next grant's
 * flush makes durable before anyone can hold the key after it (ADR 0221). Every grant, session,
 * revoke and session close still waits for its flush. A trigger records the {@code
 * synchronous_commit} each write runs under. The backend's statements share one pooled connection,
 * as the runtime role: a setting that outlived its transaction would show in the next statement on
 * it. What a crash does to a release is {@link PostgresReleaseDurabilityTest}'s.
 */
class PostgresAsynchronousCommitsTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog(PostgresBackends.LOCKDB_CHANGELOG);

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static HikariDataSource oneConnection;
  private static ReleaseListener listener;
  private static PostgresLockBackend backend;
  private static JdbcClient superuser;

  private final ExecutorService pool = Executors.newCachedThreadPool();

  @BeforeAll
  static void start() {
    superuser = JdbcClient.create(lockdb.dataSource());
    superuser
        .sql(
            """
            CREATE TABLE commit_mode (
              id bigserial PRIMARY KEY,
              tbl text, op text, kind text, synchronous_commit text)
            """)
        .update();
    superuser
        .sql(
            """
            CREATE FUNCTION record_commit_mode() RETURNS trigger
            LANGUAGE plpgsql SECURITY DEFINER AS $$
            BEGIN
              INSERT INTO commit_mode (tbl, op, kind, synchronous_commit)
              VALUES (TG_TABLE_NAME, TG_OP,
                      (CASE TG_OP WHEN 'DELETE' THEN to_jsonb(OLD) ELSE to_jsonb(NEW) END) ->> 'kind',
                      current_setting('synchronous_commit'));
              RETURN NULL;
            END $$
            """)
        .update();
    for (String table : List.of("lock_waiter", "lock_event", "lock_session", "lock_audit")) {
      superuser
          .sql(
              "CREATE TRIGGER record_commit_mode AFTER INSERT OR DELETE ON "
                  + table
                  + " FOR EACH ROW EXECUTE FUNCTION record_commit_mode()")
          .update();
    }

    PostgresDatabase database = lockdb.database();
    oneConnection = new HikariDataSource();
    oneConnection.setJdbcUrl(database.jdbcUrl());
    oneConnection.setUsername(database.runtime().username());
    oneConnection.setPassword(database.runtime().password());
    oneConnection.setMaximumPoolSize(1);
    listener = new ReleaseListener(lockdb.dataSource());
    listener.start();
    backend =
        new PostgresLockBackend(
            JdbcClient.create(oneConnection),
            new TransactionTemplate(new DataSourceTransactionManager(oneConnection)),
            listener,
            new SessionGrace(
                JdbcClient.create(oneConnection),
                "test-" + UUID.randomUUID(),
                Duration.ofMinutes(5)),
            PostgresBackendProperties.DEFAULT_KEEPALIVE_GATHER);
  }

  @AfterAll
  static void stop() {
    listener.close();
    oneConnection.close();
  }

  @BeforeEach
  void forgetEarlierWrites() {
    superuser.sql("TRUNCATE commit_mode").update();
  }

  @AfterEach
  void stopWaiters() {
    pool.shutdownNow();
  }

  @Test
  void aWaitersRowIsWrittenAndDeletedWithoutWaitingForTheWalFlush() throws Exception {
    handOffOnce();

    assertThat(commitModes("lock_waiter"))
        .as("lock_waiter writes, each with its synchronous_commit")
        .containsExactly("INSERT off", "DELETE off");
  }

  @Test
  void aReleaseCommitsWithoutWaitingForTheWalFlush() throws Exception {
    handOffOnce();

    assertThat(commitModes("lock_event"))
        .as("lock_event writes, each with its synchronous_commit")
        .filteredOn(mode -> mode.contains("RELEASED"))
        .containsExactly("INSERT RELEASED off", "INSERT RELEASED off");
  }

  @Test
  void theGrantsSessionsRevokesAndClosesAroundThemStillWaitForTheWalFlush() throws Exception {
    handOffOnce();
    // The waiter's grant comes on the one connection right after the holder's release, and the
    // revoke and the close right after the waiter's release.
    SessionId session = backend.createSession("revoked", Duration.ofSeconds(60)).sessionId();
    LockKey revoked = LockKey.of("revoked-" + UUID.randomUUID());
    backend.acquire(revoked, session, Duration.ZERO);
    backend.revoke(revoked, "operator", "test");
    backend.acquire(revoked, session, Duration.ZERO);
    backend.closeSession(session);

    assertThat(commitModes("lock_event"))
        .as("lock_event writes, each with its synchronous_commit")
        .filteredOn(mode -> !mode.contains("RELEASED"))
        .containsExactly(
            "INSERT ACQUIRED on",
            "INSERT ACQUIRED on",
            "INSERT ACQUIRED on",
            "INSERT REVOKED on",
            "INSERT ACQUIRED on",
            "INSERT SESSION_CLOSED on");
    assertThat(commitModes("lock_audit")).containsExactly("INSERT on");
    assertThat(commitModes("lock_session")).containsOnly("INSERT on", "DELETE on");
  }

  /**
   * A holder takes a fresh key, a waiter waits for it (its row written), the holder releases, the
   * waiter gets the key (its row deleted) and releases it.
   */
  private void handOffOnce() throws Exception {
    LockKey key = LockKey.of("waiter-rows-" + UUID.randomUUID());
    SessionId holder = backend.createSession("holder", Duration.ofSeconds(60)).sessionId();
    SessionId waiter = backend.createSession("waiter", Duration.ofSeconds(60)).sessionId();
    LockGrant held = backend.acquire(key, holder, Duration.ZERO);
    CompletableFuture<LockGrant> waiting =
        CompletableFuture.supplyAsync(() -> backend.acquire(key, waiter, WAIT), pool);
    await().atMost(Duration.ofSeconds(20)).until(() -> backend.inspect(key).waiters() == 1);

    backend.release(key, holder, held.token());
    LockGrant granted = waiting.get(20, TimeUnit.SECONDS);
    backend.release(key, waiter, granted.token());

    assertThat(granted.token()).isGreaterThan(held.token());
    assertThat(backend.inspect(key).waiters()).isZero();
  }

  private static List<String> commitModes(String table) {
    return superuser
        .sql(
            """
            SELECT concat_ws(' ', op, kind, synchronous_commit) FROM commit_mode
             WHERE tbl = :table ORDER BY id
            """)
        .param("table", table)
        .query(String.class)
        .list();
  }
}
