package dev.fencepost.lockserver.backend.postgres;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lockserver.backend.AcquireOverridingBackend;
import dev.fencepost.lockserver.backend.LockBackend;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * BROKEN ON PURPOSE, for the negative control only: acquire reads "is it free?" and then writes in
 * a second statement, the classic check-then-act race. Everything else delegates to the real
 * backend. The concurrency test must catch the overlaps this produces.
 */
final class NonAtomicAcquireBackend extends AcquireOverridingBackend {

  private final JdbcClient jdbc;

  NonAtomicAcquireBackend(LockBackend real, DataSource dataSource) {
    super(real);
    this.jdbc = JdbcClient.create(dataSource);
  }

  @Override
  public LockGrant acquire(LockKey key, SessionId sessionId, Duration wait) {
    UUID session = UUID.fromString(sessionId.value());
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      Optional<UUID> holder =
          jdbc.sql(
                  """
                  SELECT e.session_id FROM lock_entry e JOIN lock_session s ON s.id = e.session_id
                   WHERE e.lock_key = :key AND s.expires_at > now()
                  """)
              .param("key", key.value())
              .query(UUID.class)
              .optional();
      if (holder.isEmpty() || holder.get().equals(session)) {
        // The gap between the read above and the write below is the bug.
        return jdbc.sql(
                """
                INSERT INTO lock_entry (lock_key, session_id, owner, token, acquired_at)
                SELECT :key, id, owner, nextval('lock_token_seq'), now()
                  FROM lock_session WHERE id = :sid
                ON CONFLICT (lock_key) DO UPDATE
                  SET session_id = EXCLUDED.session_id, owner = EXCLUDED.owner,
                      token = EXCLUDED.token, acquired_at = EXCLUDED.acquired_at
                RETURNING owner, token, acquired_at
                """)
            .param("key", key.value())
            .param("sid", session)
            .query(
                (rs, n) ->
                    new LockGrant(
                        key,
                        rs.getString("owner"),
                        sessionId,
                        new FencingToken(rs.getLong("token")),
                        rs.getTimestamp("acquired_at").toInstant(),
                        rs.getTimestamp("acquired_at").toInstant().plusSeconds(60)))
            .single();
      }
      if (System.nanoTime() > deadline) {
        throw new LockNotAcquiredException(key);
      }
      Thread.onSpinWait();
    }
  }
}
