package dev.fencepost.lockserver.backend.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * The restore hazard and its procedure on PostgreSQL (INV-04, ADR 0003): a lockdb restored from an
 * older dump reissues tokens the guards have seen, unless the sequence is moved past the guards'
 * highest fence before the service starts.
 */
@Tag("INV-04")
class PostgresTokenFloorTest {

  @RegisterExtension static PostgresBackendExtension lockdb = new PostgresBackendExtension();

  private long grantAndRelease(String key) {
    SessionId s = lockdb.backend().createSession("w", Duration.ofMinutes(1)).sessionId();
    LockGrant grant = lockdb.backend().acquire(LockKey.of(key), s, Duration.ZERO);
    lockdb.backend().release(LockKey.of(key), s, grant.token());
    lockdb.backend().closeSession(s);
    return grant.token().value();
  }

  @Test
  void aRestoredSequenceReissuesSeenTokensUnlessTheFloorIsApplied() {
    JdbcClient jdbc = JdbcClient.create(lockdb.dataSource());
    long backupPoint = jdbc.sql("SELECT last_value FROM lock_token_seq").query(Long.class).single();
    List<Long> seenByGuards =
        List.of(
            grantAndRelease("payout:a"), grantAndRelease("payout:a"), grantAndRelease("payout:a"));
    long highestFence = seenByGuards.get(2);

    // The hazard: a restore puts the sequence back where the backup had it.
    jdbc.sql("SELECT setval('lock_token_seq', :v)").param("v", backupPoint).query().singleValue();
    assertThat(grantAndRelease("payout:a")).isLessThanOrEqualTo(highestFence);

    // The procedure: raise the floor to the guards' highest fence before serving.
    new TokenFloor(jdbc).raiseTo(highestFence);
    assertThat(grantAndRelease("payout:a")).isGreaterThan(highestFence);
  }

  @Test
  void theFloorNeverLowersTheSequence() {
    long issued = grantAndRelease("payout:b");
    new TokenFloor(JdbcClient.create(lockdb.dataSource())).raiseTo(1);
    assertThat(grantAndRelease("payout:b")).isGreaterThan(issued);
    assertThatThrownBy(() -> new TokenFloor(JdbcClient.create(lockdb.dataSource())).raiseTo(0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
