package dev.fencepost.lockserver.backend.postgres;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * The grace period after an outage or restart (ADR 0002).
 *
 * <p>While lockdb is unreachable no client can keep its session alive, so without grace every
 * session would be expired the moment the database returned: a mass eviction caused by our outage,
 * not by the clients. Each lock-server instance therefore stamps {@code lock_server_beacon} every
 * second while it can reach lockdb. When an instance starts, or reconnects after an outage, and
 * before it serves anything, it extends every session that was alive at the service's last sign of
 * life ({@code max(last_seen)} over all instances) to at least one full TTL from now.
 *
 * <p>Why this is safe: a session that expired while the service was demonstrably up (a recent
 * beacon) gets nothing; a session whose lock was taken over no longer exists (takeover deletes it);
 * and all of it is decided by the database clock (ADR 0004). Grace costs availability for a dead
 * client's keys (one more TTL), never exclusivity.
 */
public final class SessionGrace {

  private static final Logger log = LoggerFactory.getLogger(SessionGrace.class);

  private final JdbcClient jdbc;
  private final String instanceId;
  private final java.time.Duration reapAfter;
  private final AtomicBoolean pending = new AtomicBoolean(true);

  public SessionGrace(JdbcClient jdbc, String instanceId, java.time.Duration reapAfter) {
    this.jdbc = jdbc;
    this.instanceId = instanceId;
    this.reapAfter = reapAfter;
  }

  /** Called when a statement failed for lack of a connection: grace is due on reconnect. */
  void outageObserved() {
    if (pending.compareAndSet(false, true)) {
      log.atWarn()
          .addKeyValue("event", "lockdb.unavailable")
          .addKeyValue("instance", instanceId)
          .log("lockdb unreachable; sessions get grace when it returns");
    }
  }

  /** Runs the grace step first if an outage or a start-up preceded this call. */
  void applyIfPending() {
    if (!pending.get()) {
      return;
    }
    synchronized (this) {
      if (!pending.get()) {
        return;
      }
      // One statement: the grace and this instance's stamp commit together or not at all.
      long extended =
          jdbc.sql(
                  """
                  WITH last_sign_of_life AS (
                    SELECT coalesce(max(last_seen), now()) AS at FROM lock_server_beacon
                  ), grace AS (
                    UPDATE lock_session
                       SET expires_at = GREATEST(expires_at,
                                                 now() + ttl_millis * interval '1 millisecond')
                     WHERE expires_at >= (SELECT at FROM last_sign_of_life)
                    RETURNING 1
                  )
                  INSERT INTO lock_server_beacon (instance_id, last_seen) VALUES (:id, now())
                  ON CONFLICT (instance_id) DO UPDATE SET last_seen = now()
                  RETURNING (SELECT count(*) FROM grace)
                  """)
              .param("id", instanceId)
              .query(Long.class)
              .single();
      pending.set(false);
      log.atInfo()
          .addKeyValue("event", "lockdb.grace_applied")
          .addKeyValue("instance", instanceId)
          .addKeyValue("sessions", extended)
          .log("lockdb reachable; {} sessions given one TTL of grace", extended);
    }
  }

  /**
   * The periodic beat: proves this instance can reach lockdb (or discovers it cannot), and reaps
   * sessions expired long ago. Reaping is housekeeping only; acquire never depends on it.
   */
  public void beat() {
    try {
      applyIfPending();
      // Autocommit statements, no transaction to roll back: during an outage a beat fails
      // quietly here instead of logging a rollback failure every second.
      stamp();
      jdbc.sql(
              """
              WITH dead AS (
                DELETE FROM lock_session
                 WHERE expires_at < now() - :reap * interval '1 millisecond'
                RETURNING id
              )
              INSERT INTO lock_event (lock_key, token, session_id, kind)
              SELECT e.lock_key, e.token, e.session_id, 'EXPIRED'
                FROM lock_entry e JOIN dead d ON d.id = e.session_id
              """)
          .param("reap", reapAfter.toMillis())
          .update();
    } catch (DataAccessException e) {
      if (isConnectivityFailure(e)) {
        outageObserved();
      } else {
        throw e;
      }
    }
  }

  private void stamp() {
    jdbc.sql(
            """
            INSERT INTO lock_server_beacon (instance_id, last_seen) VALUES (:id, now())
            ON CONFLICT (instance_id) DO UPDATE SET last_seen = now()
            """)
        .param("id", instanceId)
        .update();
  }

  /**
   * Whether lockdb cancelled the statement at one of its own bounds: {@code lock_timeout} (55P03)
   * or {@code statement_timeout} (57014), set by {@code fencepost.db.timeouts.*}.
   */
  static boolean isTimeout(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql
          && ("55P03".equals(sql.getSQLState()) || "57014".equals(sql.getSQLState()))) {
        return true;
      }
    }
    return false;
  }

  static boolean isConnectivityFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CannotGetJdbcConnectionException
          || t instanceof DataAccessResourceFailureException
          || t instanceof TransientDataAccessResourceException
          || t instanceof QueryTimeoutException
          || t instanceof CannotCreateTransactionException
          || t instanceof SQLTransientConnectionException) {
        return true;
      }
      if (t instanceof SQLException sql
          && sql.getSQLState() != null
          && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P"))) {
        return true;
      }
    }
    return false;
  }
}
