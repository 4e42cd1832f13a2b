package dev.fencepost.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.history.Records.Grant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A lockdb restored from a backup, as the grant history sees it: the backup holds lock_event 1..4
 * and tokens up to 2; after it, another key takes tokens 3..6 (ids 5..12); the restore erases
 * those, and the restored lockdb numbers its next entries 5, 6, ... again.
 */
class GrantEpochsTest {

  static Grant grant(String key, long token, String kind, long id) {
    return new Grant("lockdb", key, token, kind, "s" + token, id, null);
  }

  /** lockdb before the restore: the backup's four entries, then four grants on another key. */
  static List<Grant> beforeRestore() {
    List<Grant> read = new ArrayList<>();
    read.add(grant("payout:a", 1, "ACQUIRED", 1));
    read.add(grant("payout:a", 1, "RELEASED", 2));
    read.add(grant("payout:b", 2, "ACQUIRED", 3));
    read.add(grant("payout:b", 2, "RELEASED", 4));
    long id = 5;
    for (long t = 3; t <= 6; t++) {
      read.add(grant("other:traffic", t, "ACQUIRED", id++));
      read.add(grant("other:traffic", t, "RELEASED", id++));
    }
    return read;
  }

  /** lockdb read at the end: the backup's entries, then what the restored one issued. */
  static List<Grant> afterRestore(long firstToken) {
    List<Grant> read = new ArrayList<>(beforeRestore().subList(0, 4));
    read.add(grant("payout:a", firstToken, "ACQUIRED", 5));
    read.add(grant("payout:a", firstToken, "RELEASED", 6));
    return read;
  }

  @Test
  void laterReadsKeepOnlyWhatTheRestoredBackendAddedRenumberedAfterWhatWasKept() {
    List<Grant> joined = new GrantEpochs().add(beforeRestore(), 0).add(afterRestore(3), 4).grants();

    assertThat(joined).hasSize(14);
    assertThat(joined)
        .extracting(Grant::seq)
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L);
    assertThat(joined.subList(0, 12)).allSatisfy(g -> assertThat(g.epoch()).isZero());
    assertThat(joined.subList(12, 14))
        .allSatisfy(
            g -> {
              assertThat(g.epoch()).isEqualTo(1);
              assertThat(g.key()).isEqualTo("payout:a");
              assertThat(g.token()).isEqualTo(3L);
            });
  }

  @Test
  void aRestoredBackendThatReissuesATokenIsCaughtAndOneMovedPastEveryOldTokenIsNot() {
    History reissued = new History();
    new GrantEpochs()
        .add(beforeRestore(), 0)
        .add(afterRestore(3), 4)
        .grants()
        .forEach(reissued::add);
    History floored = new History();
    new GrantEpochs()
        .add(beforeRestore(), 0)
        .add(afterRestore(1_000_008), 4)
        .grants()
        .forEach(floored::add);

    CheckReport withoutProcedure = new Checker().check(reissued);
    CheckReport withProcedure = new Checker().check(floored);

    // Token 3 went to another key before the restore: per key nothing regressed, across keys it
    // is a token handed out twice.
    assertThat(withoutProcedure.count("token_reissued_after_restore")).isEqualTo(1);
    assertThat(withoutProcedure.count("token_regressions")).isZero();
    assertThat(withProcedure.safe()).isTrue();
  }

  @Test
  void withoutTheEpochsTheSameReadsHideTheReissue() {
    // Negative control for the join: the restored backend's reads simply appended, ids colliding.
    History naive = new History();
    beforeRestore().forEach(naive::add);
    afterRestore(3).subList(4, 6).forEach(naive::add);

    assertThat(new Checker().check(naive).count("token_reissued_after_restore")).isZero();
  }

  @Test
  void theFirstReadPrecedesEveryRestore() {
    assertThatThrownBy(() -> new GrantEpochs().add(beforeRestore(), 4))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
