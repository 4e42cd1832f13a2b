package dev.fencepost.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FencingTokenTest {

  @Test
  void tokensOrderByValue() {
    assertThat(
            List.of(FencingToken.of(9), FencingToken.of(2), FencingToken.of(5)).stream().sorted())
        .containsExactly(FencingToken.of(2), FencingToken.of(5), FencingToken.of(9));
    assertThat(FencingToken.of(3).isNewerThan(FencingToken.of(2))).isTrue();
    assertThat(FencingToken.of(3).isNewerThan(FencingToken.of(3))).isFalse();
  }

  @Test
  void aHolderIsStaleOnlyWhenBelowTheFenceSoItsOwnSecondWriteIsAccepted() {
    assertThat(FencingToken.of(7).isStaleAgainst(8)).isTrue();
    assertThat(FencingToken.of(7).isStaleAgainst(7)).isFalse();
    assertThat(FencingToken.of(7).isStaleAgainst(0)).isFalse();
  }

  @Test
  void zeroAndNegativeTokensDoNotExist() {
    assertThatThrownBy(() -> FencingToken.of(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FencingToken.of(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void fencedOutCarriesBothTokensForThePostmortem() {
    var e = new FencedOutException("payout:acc-1", 4, 9, "worker-a");
    assertThat(e.code()).isEqualTo("STALE_TOKEN");
    assertThat(e.presentedToken()).isEqualTo(4);
    assertThat(e.storedFence()).isEqualTo(9);
    assertThat(e.getMessage()).contains("4").contains("9");
  }
}
