package dev.fencepost.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Which characters free text may hold: everything but Unicode's control characters (Cc). */
class FreeTextTest {

  @Test
  void everyC0AndC1ControlCharacterIsRefusedTabAndLineBreaksIncluded() {
    for (char c = 0; c <= 0x1f; c++) {
      assertThat(FreeText.hasControlCharacter("a" + c + "b")).as("U+%04X", (int) c).isTrue();
    }
    for (char c = 0x7f; c <= 0x9f; c++) {
      assertThat(FreeText.hasControlCharacter("a" + c + "b")).as("U+%04X", (int) c).isTrue();
    }
    assertThatThrownBy(() -> FreeText.requireNoControlCharacters("reason", "stuck\u0000"))
        .isInstanceOf(InvalidTextException.class)
        .satisfies(e -> assertThat(((InvalidTextException) e).field()).isEqualTo("reason"));
  }

  @Test
  void textOfAnyScriptPassesAndNullIsTheCallersRule() {
    assertThat(FreeText.requireNoControlCharacters("reason", "Zoë: 中文, «ok» 🙂 \u00a0 \u2028"))
        .isEqualTo("Zoë: 中文, «ok» 🙂 \u00a0 \u2028");
    assertThat(FreeText.requireNoControlCharacters("reason", null)).isNull();
  }

  @Test
  void printableReplacesControlCharactersSoRecordingCannotFail() {
    assertThat(FreeText.printable("k\u0000i\nd")).isEqualTo("k\uFFFDi\uFFFDd");
    assertThat(FreeText.printable("kid-1")).isEqualTo("kid-1");
  }
}
