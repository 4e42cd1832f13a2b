package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.LockNotAcquiredException;
import dev.fencepost.lock.SessionId;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The acquire as one autocommit statement, {@code lock_acquire} (ADR 0194): what it must still do
 * that the separate statements did, beyond what the contract suite checks.
 */
class PostgresAcquireStatementTest {

  @RegisterExtension static PostgresBackendExtension lockdb = new PostgresBackendExtension();

  private static JdbcClient jdbc;
  private static PostgresLockBackend backend;

  @BeforeAll
  static void start() {
    jdbc = JdbcClient.create(lockdb.dataSource());
    backend = lockdb.backend();
  }

  @Test
  @Tag("INV-04")
  void aGrantWhoseCommitFailsIsNeverHandedOutAndItsTokenIsNeverIssued() {
    // A check deferred to COMMIT, which fails it for one key: the function has returned its row,
    // with a token, by the time the commit fails. The caller must see the failure, not the token.
    jdbc.sql(
            """
            CREATE FUNCTION test_refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF NEW.kind = 'ACQUIRED' AND NEW.lock_key LIKE 'commit-refused:%' THEN
                RAISE EXCEPTION 'commit refused for %', NEW.lock_key;
              END IF;
              RETURN NULL;
            END $$
            """)
        .update();
    jdbc.sql(
            """
            CREATE CONSTRAINT TRIGGER test_refuse_commit AFTER INSERT ON lock_event
              DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_refuse_commit()
            """)
        .update();
    try {
      SessionId session = backend.createSession("worker", Duration.ofMinutes(1)).sessionId();
      LockKey refused = LockKey.of("commit-refused:" + UUID.randomUUID());

      assertThatThrownBy(() -> backend.acquire(refused, session, Duration.ZERO))
          .isInstanceOf(DataAccessException.class)
          .hasMessageContaining("commit refused");

      long drawn = jdbc.sql("SELECT last_value FROM lock_token_seq").query(Long.class).single();
      assertThat(backend.inspect(refused).held()).isFalse();
      assertThat(
              jdbc.sql("SELECT count(*) FROM lock_event WHERE lock_key = :key")
                  .param("key", refused.value())
                  .query(Long.class)
                  .single())
          .isZero();
      // The token drawn for it is burned: the next grant, of any key, is above it.
      LockGrant next =
          backend.acquire(LockKey.of("after:" + UUID.randomUUID()), session, Duration.ZERO);
      assertThat(next.token().value()).isGreaterThan(drawn);
    } finally {
      jdbc.sql("DROP TRIGGER test_refuse_commit ON lock_event").update();
      jdbc.sql("DROP FUNCTION test_refuse_commit()").update();
    }
  }

  @Test
  void aKeyHeldByAnotherLiveSessionIsRefusedWithoutLockingOrWritingAnything() {
    SessionId holder = backend.createSession("holder", Duration.ofMinutes(1)).sessionId();
    SessionId other = backend.createSession("other", Duration.ofMinutes(1)).sessionId();
    LockKey key = LockKey.of("refused:" + UUID.randomUUID());
    LockGrant held = backend.acquire(key, holder, Duration.ZERO);
    String xmaxBefore = xmax(key);

    assertThatThrownBy(() -> backend.acquire(key, other, Duration.ZERO))
        .isInstanceOf(LockNotAcquiredException.class);
    Map<String, Object> answer =
        jdbc.sql("SELECT outcome, r_expires_in FROM lock_acquire(:key, :sid)")
            .param("key", key.value())
            .param("sid", UUID.fromString(other.value()))
            .query()
            .singleRow();

    // A row lock (FOR UPDATE) would have stamped the row's xmax with the refused attempt's
    // transaction id, and given it a commit to flush (ADR 0209).
    assertThat(xmax(key)).isEqualTo(xmaxBefore);
    assertThat(answer.get("outcome")).isEqualTo("HELD");
    // How long until the holder's session expires: a waiting acquire's bound on its sleep.
    assertThat((Long) answer.get("r_expires_in")).isBetween(1L, 60_000L);
    assertThat(backend.inspect(key).token()).isEqualTo(held.token());
  }

  private static String xmax(LockKey key) {
    return jdbc.sql("SELECT xmax::text FROM lock_entry WHERE lock_key = :key")
        .param("key", key.value())
        .query(String.class)
        .single();
  }

  @Test
  void takingOverAnExpiredHolderNotifiesTheWaitersOfItsOtherKeysNotOfTheKeyTaken()
      throws Exception {
    SessionId dying = backend.createSession("dying", Duration.ofMinutes(1)).sessionId();
    LockKey taken = LockKey.of("notify:" + UUID.randomUUID());
    LockKey alsoHeld = LockKey.of("notify:" + UUID.randomUUID());
    backend.acquire(taken, dying, Duration.ZERO);
    backend.acquire(alsoHeld, dying, Duration.ZERO);
    jdbc.sql("UPDATE lock_session SET expires_at = now() - interval '1 second' WHERE id = :id")
        .param("id", UUID.fromString(dying.value()))
        .update();
    SessionId successor = backend.createSession("successor", Duration.ofMinutes(1)).sessionId();

    try (Connection listener = lockdb.dataSource().getConnection()) {
      try (Statement s = listener.createStatement()) {
        s.execute("LISTEN " + ReleaseListener.CHANNEL);
      }
      backend.acquire(taken, successor, Duration.ZERO);
      // A marker sent after the takeover committed: notifications arrive in commit order, so
      // everything the takeover sent is in before it.
      String marker = "marker:" + UUID.randomUUID();
      jdbc.sql("SELECT pg_notify(:channel, :marker)")
          .param("channel", ReleaseListener.CHANNEL)
          .param("marker", marker)
          .query()
          .singleValue();

      List<String> freed = new ArrayList<>();
      PGConnection pg = listener.unwrap(PGConnection.class);
      while (!freed.contains(marker)) {
        PGNotification[] received = pg.getNotifications(30_000);
        assertThat(received).as("the marker within 30 s").isNotNull().isNotEmpty();
        for (PGNotification n : received) {
          freed.add(n.getParameter());
        }
      }
      assertThat(freed).containsExactly(alsoHeld.value(), marker);
    }
  }
}
