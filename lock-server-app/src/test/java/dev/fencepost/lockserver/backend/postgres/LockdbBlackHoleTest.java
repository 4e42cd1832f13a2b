package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.lockserver.http.LockServerClient.Response;
import dev.fencepost.testsupport.network.BlackHole;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import dev.fencepost.testsupport.postgres.Sessions;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * lockdb goes silent in the middle of a release's transaction (a proxy between the lock server and
 * PostgreSQL stops forwarding, closing nothing). The lock server gives up within its bounds and
 * answers 503, and lockdb itself ends the orphaned transaction, so the row locks it took are free
 * again for everyone else (ADR 0155). Without {@code fencepost.db.timeouts.*} the call hangs and
 * the rows stay locked until the operating system notices the dead connection.
 *
 * <p>A release, not an acquire: an acquire is one autocommit statement since ADR 0194, which lockdb
 * commits on its own even when its answer goes into the void, so it never leaves a transaction
 * open; a release is still a transaction of several statements.
 *
 * <p>The bounds here are small (socket 4 s, idle in transaction 2 s); the awaits allow five times
 * as much, far less than a hang.
 */
@Tag("UC-08")
// The long tier (-Dexperiments.long=true -Plong-tier): a failover scenario of tens of seconds.
@Tag("long")
class LockdbBlackHoleTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog(PostgresBackends.LOCKDB_CHANGELOG);

  private static final Duration BOUND = Duration.ofSeconds(20);

  private BlackHole hole;
  private ConfigurableApplicationContext server;
  private LockServerClient client;
  private final String key = "payout:acc-" + UUID.randomUUID();
  private String holder;
  private long token;
  private String caller;

  @BeforeEach
  void startBehindAProxy() {
    hole = BlackHole.inFrontOf(lockdb.server().port());
    server =
        PostgresLockServer.startThrough(
            lockdb,
            "jdbc:postgresql://127.0.0.1:" + hole.port() + "/" + lockdb.database().name(),
            "--fencepost.db.timeouts.connection-timeout=2s",
            "--fencepost.db.timeouts.socket-timeout=4s",
            "--fencepost.db.timeouts.statement-timeout=3s",
            "--fencepost.db.timeouts.lock-timeout=3s",
            "--fencepost.db.timeouts.idle-in-transaction-timeout=2s");
    client = LockServerClient.of(server);
    holder = client.newSession("holder");
    Response granted = client.acquire(key, holder, 0);
    assertThat(granted.status()).isEqualTo(200);
    token = granted.token();
    caller = client.newSession("caller");
  }

  @AfterEach
  void stop() {
    hole.restore();
    server.close();
    hole.close();
  }

  @Test
  void aReleaseWhoseLockdbGoesSilentMidTransactionAnswers503InsteadOfHanging() throws Exception {
    CompletableFuture<Response> release = releaseCutOffMidTransaction();

    await().atMost(BOUND).until(release::isDone);
    assertThat(release.get().status()).isEqualTo(503);
    assertThat(release.get().code()).isEqualTo("BACKEND_UNAVAILABLE");

    // While lockdb stays silent, every further call gives up within the bounds too.
    CompletableFuture<Response> keepAlive =
        CompletableFuture.supplyAsync(
            () -> client.post("/v1/sessions/" + caller + "/keepalive", ""));
    await().atMost(BOUND).until(keepAlive::isDone);
    assertThat(keepAlive.get().status()).isEqualTo(503);
  }

  @Test
  void theRowLocksOfTheSilencedTransactionAreFreedOnLockdb() throws Exception {
    releaseCutOffMidTransaction();

    // A direct connection (not through the proxy), willing to wait a minute, gets the row the
    // silenced transaction locked, its delete rolled back: lockdb has ended that session on its
    // own.
    CompletableFuture<Void> direct =
        Sessions.lockDirectly(
            lockdb,
            Duration.ofSeconds(60),
            c ->
                Sessions.lockRow(c, "SELECT 1 FROM lock_entry WHERE lock_key = ? FOR UPDATE", key));
    await().atMost(BOUND).until(direct::isDone);
    direct.get();
  }

  /**
   * Starts the holder's release, whose transaction lockdb has received and is executing (its DELETE
   * waits for the key's row, which a direct transaction holds), then silences the proxy and lets
   * the release have the row: lockdb answers the DELETE into the void and the transaction sits
   * open, the row deleted and locked, with a client that will never send the rest of it.
   */
  private CompletableFuture<Response> releaseCutOffMidTransaction() throws SQLException {
    try (Connection blocker = Sessions.direct(lockdb)) {
      blocker.setAutoCommit(false);
      Sessions.lockRow(blocker, "SELECT 1 FROM lock_entry WHERE lock_key = ? FOR UPDATE", key);
      CompletableFuture<Response> release =
          CompletableFuture.supplyAsync(() -> client.release(key, holder, token));
      await().atMost(BOUND).until(() -> Sessions.aSessionWaitsForARowLock(lockdb.dataSource()));
      hole.swallow();
      blocker.commit();
      return release;
    }
  }
}
