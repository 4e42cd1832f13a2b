package dev.fencepost.security.impl;

import java.util.function.Predicate;

/**
 * Spring Security's firewall rules for header names, header values and parameter names, without the
 * regular expressions: every code point is assigned in Unicode and is not an ISO control character,
 * except that a header value may hold a tab. The firewall's defaults run {@code
 * [\p{IsAssigned}&&[^\p{IsControl}]]*} (and for values the same with the tab) over every header it
 * is asked for, the bearer token's several hundred characters among them. In a profile of the lock
 * server that was about 7 % of the request threads' CPU, the largest share after the grant
 * signature. The rules are the same, code point for code point ({@code AssignedAndNotControlTest}
 * compares each with the firewall's own over every code point). Printable ASCII, which is nearly
 * every character of a real header, is decided without a table lookup.
 */
final class AssignedAndNotControl implements Predicate<String> {

  /** Header names and parameter names. */
  static final AssignedAndNotControl NAMES = new AssignedAndNotControl(false);

  /** Header values: a tab is allowed too. */
  static final AssignedAndNotControl HEADER_VALUES = new AssignedAndNotControl(true);

  private final boolean tabAllowed;

  private AssignedAndNotControl(boolean tabAllowed) {
    this.tabAllowed = tabAllowed;
  }

  @Override
  public boolean test(String value) {
    int length = value.length();
    int i = 0;
    while (i < length) {
      char c = value.charAt(i);
      if ((c >= 0x20 && c < 0x7f) || (c == '\t' && tabAllowed)) {
        i++;
        continue;
      }
      int codePoint = value.codePointAt(i);
      if (Character.getType(codePoint) == Character.UNASSIGNED
          || Character.isISOControl(codePoint)) {
        return false;
      }
      i += Character.charCount(codePoint);
    }
    return true;
  }
}
