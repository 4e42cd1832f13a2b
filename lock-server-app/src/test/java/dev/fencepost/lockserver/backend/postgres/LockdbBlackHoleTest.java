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
 * lockdb goes silent in the middle of an acquire's transaction (a proxy between the lock server and
 * PostgreSQL stops forwarding, closing nothing). The lock server gives up within its bounds and
 * answers 503, and lockdb itself ends the orphaned transaction, so the row locks it took are free
 * again for everyone else (ADR 0155). Without {@code fencepost.db.timeouts.*} the call hangs and
 * the rows stay locked until the operating system notices the dead connection.
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
    String holder = client.newSession("holder");
    assertThat(client.acquire(key, holder, 0).status()).isEqualTo(200);
    caller = client.newSession("caller");
  }

  @AfterEach
  void stop() {
    hole.restore();
    server.close();
    hole.close();
  }

  @Test
  void anAcquireWhoseLockdbGoesSilentMidTransactionAnswers503InsteadOfHanging() throws Exception {
    CompletableFuture<Response> acquire = acquireCutOffMidTransaction();

    await().atMost(BOUND).until(acquire::isDone);
    assertThat(acquire.get().status()).isEqualTo(503);
    assertThat(acquire.get().code()).isEqualTo("BACKEND_UNAVAILABLE");

    // While lockdb stays silent, every further call gives up within the bounds too.
    CompletableFuture<Response> keepAlive =
        CompletableFuture.supplyAsync(
            () -> client.post("/v1/sessions/" + caller + "/keepalive", ""));
    await().atMost(BOUND).until(keepAlive::isDone);
    assertThat(keepAlive.get().status()).isEqualTo(503);
  }

  @Test
  void theRowLocksOfTheSilencedTransactionAreFreedOnLockdb() throws Exception {
    acquireCutOffMidTransaction();

    // A direct connection (not through the proxy), willing to wait a minute, gets the rows the
    // silenced transaction locked: lockdb has ended that session on its own.
    CompletableFuture<Void> direct =
        Sessions.lockDirectly(
            lockdb,
            Duration.ofSeconds(60),
            c -> {
              Sessions.lockRow(c, "SELECT 1 FROM lock_entry WHERE lock_key = ? FOR UPDATE", key);
              Sessions.lockRow(
                  c, "SELECT 1 FROM lock_session WHERE id = ?::uuid FOR UPDATE", caller);
            });
    await().atMost(BOUND).until(direct::isDone);
    direct.get();
  }

  /**
   * Starts an acquire whose transaction lockdb has received and is executing (it holds the caller's
   * session row and waits for the key's row, which a direct transaction holds), then silences the
   * proxy and lets the acquire have the row: lockdb answers into the void and the transaction sits
   * open, its row locks held, with a client that will never speak again.
   */
  private CompletableFuture<Response> acquireCutOffMidTransaction() throws SQLException {
    try (Connection blocker = Sessions.direct(lockdb)) {
      blocker.setAutoCommit(false);
      Sessions.lockRow(blocker, "SELECT 1 FROM lock_entry WHERE lock_key = ? FOR UPDATE", key);
      CompletableFuture<Response> acquire =
          CompletableFuture.supplyAsync(() -> client.acquire(key, caller, 0));
      await().atMost(BOUND).until(() -> Sessions.aSessionWaitsForARowLock(lockdb.dataSource()));
      hole.swallow();
      blocker.commit();
      return acquire;
    }
  }
}
