package dev.fencepost.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class LockKeyTest {

  @Test
  void payoutKeyIsPrefixedWithThePayoutNamespace() {
    assertThat(LockKey.forPayoutAccount("acc-42").value()).isEqualTo("payout:acc-42");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "payout:acc-1", "A.b_c-d:9"})
  void wellFormedKeysAreAccepted(String key) {
    assertThat(LockKey.of(key).value()).isEqualTo(key);
    assertThat(LockKey.isValid(key)).isTrue();
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {" ", "a b", "payout/acc", "ключ", "a\nb", "payout:acc;drop"})
  void malformedKeysAreRejectedWithTheInvalidKeyCode(String key) {
    assertThat(LockKey.isValid(key)).isFalse();
    assertThatThrownBy(() -> LockKey.of(key))
        .isInstanceOf(InvalidLockKeyException.class)
        .extracting(e -> ((LockException) e).code())
        .isEqualTo("INVALID_KEY");
  }

  @Test
  void keysAreBoundedTo128Characters() {
    assertThat(LockKey.isValid("k".repeat(128))).isTrue();
    assertThat(LockKey.isValid("k".repeat(129))).isFalse();
  }
}
