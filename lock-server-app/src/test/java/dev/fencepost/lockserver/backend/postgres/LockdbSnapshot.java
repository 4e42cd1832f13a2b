package dev.fencepost.lockserver.backend.postgres;

import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Everything a refused call must leave as it was in lockdb, in one string: sessions and their
 * latest expiry, entries, waiters, events, audit rows and the token sequence. Two equal snapshots
 * mean nothing was written.
 */
final class LockdbSnapshot {

  private LockdbSnapshot() {}

  static String of(DataSource lockdb) {
    return JdbcClient.create(lockdb)
        .sql(
            """
            SELECT (SELECT count(*) FROM lock_session) || '/' ||
                   (SELECT max(expires_at) FROM lock_session) || '/' ||
                   (SELECT count(*) FROM lock_entry) || '/' ||
                   (SELECT count(*) FROM lock_waiter) || '/' ||
                   (SELECT count(*) FROM lock_event) || '/' ||
                   (SELECT count(*) FROM lock_audit) || '/' ||
                   (SELECT last_value FROM lock_token_seq)
            """)
        .query(String.class)
        .single();
  }
}
