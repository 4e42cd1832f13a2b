package dev.fencepost.lockserver.backend.postgres;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Moves the token sequence past a floor, never backwards: the restore procedure's one mutation
 * (decision 0003). A lockdb restored from a backup carries the sequence as it was then; without
 * this, it would reissue tokens the guards have already accepted.
 */
public final class TokenFloor {

  private static final Logger log = LoggerFactory.getLogger(TokenFloor.class);

  private final JdbcClient jdbc;

  public TokenFloor(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /** After this, every token issued is greater than {@code floor}. Returns the sequence's value. */
  public long raiseTo(long floor) {
    if (floor <= 0) {
      throw new IllegalArgumentException("a token floor is a positive integer, got " + floor);
    }
    long before = jdbc.sql("SELECT last_value FROM lock_token_seq").query(Long.class).single();
    // Through lockdb's function, which only raises: the runtime role has no UPDATE on the
    // sequence, with which setval could move it backwards (ADR 0160).
    long after =
        jdbc.sql("SELECT lock_token_floor(:floor)")
            .param("floor", floor)
            .query(Long.class)
            .single();
    log.atWarn()
        .addKeyValue("event", "lock.token_floor_applied")
        .addKeyValue("floor", floor)
        .addKeyValue("sequenceBefore", before)
        .addKeyValue("sequenceAfter", after)
        .log("token sequence raised to at least {} (restore procedure)", floor);
    return after;
  }
}
