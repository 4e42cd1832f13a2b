package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lockserver.backend.BackendUnavailableException;
import dev.fencepost.lockserver.history.GrantHistory;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * PostgreSQL stops and starts under load (the embedded server is this test's own). Across the
 * outage no token is issued twice or goes backwards (INV-04), held grants survive, and sessions
 * alive when the outage began get one TTL of grace (ADR 0002).
 */
@Tag("INV-04")
@Tag("NFR-05")
class PostgresRestartTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog(PostgresBackends.LOCKDB_CHANGELOG).dedicatedServer();

  private static final Duration TTL = Duration.ofSeconds(3);
  private static PostgresBackends.Running running;
  private static ScheduledExecutorService beacon;
  private static HikariDataSource pool;

  @BeforeAll
  static void start() {
    // As in production: give up on a connection quickly, so an outage is a fast 503.
    pool = lockdb.server().pool(lockdb.database().name(), 12);
    pool.setConnectionTimeout(1_000);
    running = PostgresBackends.start(pool);
    // As the lock server does: a beat every 200 ms proves lockdb is reachable.
    beacon = Executors.newSingleThreadScheduledExecutor();
    beacon.scheduleWithFixedDelay(
        () -> {
          try {
            running.grace().beat();
          } catch (RuntimeException e) {
            // recorded as an outage by the grace keeper
          }
        },
        0,
        200,
        TimeUnit.MILLISECONDS);
  }

  @AfterAll
  static void stop() {
    beacon.shutdownNow();
    running.close();
    pool.close();
  }

  @Test
  void restartUnderLoadIssuesNoTokenTwiceKeepsHeldGrantsAndGivesSessionsGrace() throws Exception {
    var backend = running.backend();
    SessionId holder = backend.createSession("holder", TTL).sessionId();
    LockKey held = LockKey.of("restart:held");
    LockGrant grant = backend.acquire(held, holder, Duration.ZERO);
    SessionId alreadyDead = backend.createSession("dead-before", Duration.ofSeconds(1)).sessionId();
    LockKey deadKey = LockKey.of("restart:dead");
    backend.acquire(deadKey, alreadyDead, Duration.ZERO);
    await().atMost(Duration.ofSeconds(10)).until(() -> !backend.inspect(deadKey).held());
    // Grace covers sessions alive at the service's last sign of life; this one must have died
    // before it, so wait until a beacon has been stamped after its expiry.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                JdbcClient.create(lockdb.dataSource())
                    .sql(
                        """
                        SELECT (SELECT max(last_seen) FROM lock_server_beacon)
                             > (SELECT expires_at FROM lock_session WHERE id = :id::uuid)
                        """)
                    .param("id", alreadyDead.value())
                    .query(Boolean.class)
                    .optional()
                    .orElse(true));

    CompletableFuture<GrantHistory> load =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return ConcurrencyWorkload.run(backend, 4, 3, 600, "restart:load:");
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(30)).until(() -> tokensIssued() > 50);

    lockdb.server().stop();
    long downSince = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              try {
                backend.keepAlive(holder);
                return false;
              } catch (BackendUnavailableException e) {
                return true;
              }
            });
    // Stay down longer than the holder's TTL: without grace its session would be expired.
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> System.nanoTime() - downSince > TTL.multipliedBy(2).toNanos());
    lockdb.server().start();

    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> backend.keepAlive(holder) != null);
    assertThat(backend.renew(held, holder, grant.token()).token()).isEqualTo(grant.token());
    assertThatThrownBy(() -> backend.keepAlive(alreadyDead))
        .isInstanceOf(SessionNotFoundException.class);

    GrantHistory history = load.get(120, TimeUnit.SECONDS);
    assertThat(history.size()).isEqualTo(600);
    assertThat(history.overlaps()).isEmpty();
    assertThat(history.tokenRegressions()).isEmpty();
    JdbcClient jdbc = JdbcClient.create(lockdb.dataSource());
    List<Long> acquired =
        jdbc.sql("SELECT token FROM lock_event WHERE kind = 'ACQUIRED'").query(Long.class).list();
    assertThat(acquired).doesNotHaveDuplicates();
    // Per key, the history written in each grant's own transaction only ever goes up.
    List<String> keys =
        jdbc.sql("SELECT DISTINCT lock_key FROM lock_event").query(String.class).list();
    for (String key : keys) {
      assertThat(
              jdbc.sql(
                      "SELECT token FROM lock_event WHERE lock_key = :k AND kind = 'ACQUIRED'"
                          + " ORDER BY id")
                  .param("k", key)
                  .query(Long.class)
                  .list())
          .as("tokens of %s in history order", key)
          .isSorted();
    }
  }

  private static long tokensIssued() {
    return JdbcClient.create(lockdb.dataSource())
        .sql("SELECT count(*) FROM lock_event WHERE kind = 'ACQUIRED'")
        .query(Long.class)
        .single();
  }
}
