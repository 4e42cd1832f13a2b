package dev.fencepost.security.impl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.springframework.security.web.firewall.StrictHttpFirewall;

/**
 * Our firewall rules decide exactly as Spring Security's regular expressions do. Spring's
 * predicates are the reference here, so a change in either shows up as a difference.
 */
class AssignedAndNotControlTest {

  @Test
  void namesAndValuesAreDecidedAsTheFirewallsOwnRulesDecideThemForEveryCodePoint() {
    for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
      String one = new String(Character.toChars(cp));
      String inText = "Bearer ab" + one + "cd";
      same(AssignedAndNotControl.NAMES, StrictHttpFirewall.ALLOWED_HEADER_NAMES, one);
      same(AssignedAndNotControl.NAMES, StrictHttpFirewall.ALLOWED_PARAMETER_NAMES, inText);
      same(AssignedAndNotControl.HEADER_VALUES, StrictHttpFirewall.ALLOWED_HEADER_VALUES, one);
      same(AssignedAndNotControl.HEADER_VALUES, StrictHttpFirewall.ALLOWED_HEADER_VALUES, inText);
    }
  }

  @Test
  void randomTextWithSurrogatesAlonePairedAndMisplacedIsDecidedTheSame() {
    SplittableRandom random = new SplittableRandom(191);
    char[] pool = {
      'a', 'Z', '0', '-', '.', ' ', '\t', '\u0000', '\u007f', '\u0085', '\u00e9', '\u0378',
      '\ud83d', '\ude00', '\udc00', '\ud800', '\uffff', '\ufeff'
    };
    for (int n = 0; n < 200_000; n++) {
      char[] text = new char[random.nextInt(0, 12)];
      for (int i = 0; i < text.length; i++) {
        text[i] = pool[random.nextInt(pool.length)];
      }
      String s = new String(text);
      same(AssignedAndNotControl.NAMES, StrictHttpFirewall.ALLOWED_HEADER_NAMES, s);
      same(AssignedAndNotControl.HEADER_VALUES, StrictHttpFirewall.ALLOWED_HEADER_VALUES, s);
    }
  }

  @Test
  void aBearerTokenPassesAndAControlCharacterOrAnUnassignedOneAnywhereInItDoesNot() {
    String token = "Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3MSJ9.c2lnbmF0dXJl-_";
    assertThat(AssignedAndNotControl.HEADER_VALUES.test(token)).isTrue();
    assertThat(AssignedAndNotControl.HEADER_VALUES.test(token + "\tx")).isTrue();
    assertThat(AssignedAndNotControl.NAMES.test("X-Name\t")).isFalse();
    for (String bad : new String[] {"\u0000", "\r", "\n", "\u007f", "\u0085", "\u0378"}) {
      assertThat(AssignedAndNotControl.HEADER_VALUES.test(token + bad)).isFalse();
      assertThat(AssignedAndNotControl.HEADER_VALUES.test(bad + token)).isFalse();
      assertThat(AssignedAndNotControl.NAMES.test("X" + bad + "Y")).isFalse();
    }
  }

  private static void same(Predicate<String> ours, Predicate<String> spring, String s) {
    assertThat(ours.test(s))
        .as("%s for %s", spring, s.codePoints().mapToObj(Integer::toHexString).toList())
        .isEqualTo(spring.test(s));
  }
}
