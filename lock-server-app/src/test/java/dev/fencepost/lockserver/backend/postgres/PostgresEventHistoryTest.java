package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * lockdb's event history ends every grant it starts: the history checker reads {@code lock_event}
 * to tell one holder after another from two at once, so a grant that ends without an event looks
 * like an overlap with the next holder of its key.
 */
@Tag("FR-04")
class PostgresEventHistoryTest {

  @RegisterExtension static PostgresBackendExtension lockdb = new PostgresBackendExtension();

  record Event(String key, long token, String kind) {}

  /**
   * A holder that dies holding two keys, one of them taken over by another session: taking the key
   * over deletes the dead session and, with it, its other key too, so both grants end as EXPIRED
   * (with only the taken key's event, the chaos run's history checker saw the next grant of the
   * other key as a second holder).
   */
  @Test
  void takingOverAnExpiredHoldersKeyEndsEveryGrantOfThatHolder() {
    SessionId dying = lockdb.backend().createSession("dies", Duration.ofMillis(300)).sessionId();
    LockGrant taken = lockdb.backend().acquire(LockKey.of("history:a"), dying, Duration.ZERO);
    LockGrant alsoHeld = lockdb.backend().acquire(LockKey.of("history:b"), dying, Duration.ZERO);
    await().until(() -> sessionExpired(dying));

    SessionId successor = lockdb.backend().createSession("next", Duration.ofMinutes(1)).sessionId();
    LockGrant next = lockdb.backend().acquire(LockKey.of("history:a"), successor, Duration.ZERO);

    assertThat(next.token().value()).isGreaterThan(alsoHeld.token().value());
    assertThat(events(dying))
        .containsExactlyInAnyOrder(
            new Event("history:a", taken.token().value(), "ACQUIRED"),
            new Event("history:b", alsoHeld.token().value(), "ACQUIRED"),
            new Event("history:a", taken.token().value(), "EXPIRED"),
            new Event("history:b", alsoHeld.token().value(), "EXPIRED"));
    // The other key went with its session, so it is free at once.
    assertThat(lockdb.backend().acquire(LockKey.of("history:b"), successor, Duration.ZERO).token())
        .isNotNull();
  }

  private static boolean sessionExpired(SessionId session) {
    return JdbcClient.create(lockdb.dataSource())
        .sql("SELECT expires_at <= now() FROM lock_session WHERE id = :id::uuid")
        .param("id", session.value())
        .query(Boolean.class)
        .single();
  }

  private static List<Event> events(SessionId session) {
    return JdbcClient.create(lockdb.dataSource())
        .sql("SELECT lock_key, token, kind FROM lock_event WHERE session_id = :id::uuid")
        .param("id", session.value())
        .query((rs, n) -> new Event(rs.getString(1), rs.getLong(2), rs.getString(3)))
        .list();
  }
}
