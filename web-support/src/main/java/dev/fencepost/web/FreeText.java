package dev.fencepost.web;

/**
 * The one rule for free text a Fencepost API accepts (an owner, an operator, a reason, a job
 * parameter): no control characters (ADR 0166). NUL cannot be stored in PostgreSQL text at all, and
 * line breaks, tabs, escapes and the other C0/C1 controls have no place in a one-line name or
 * reason that ends up in audit rows, structured log events and operators' terminals. Tab and
 * newline are refused too: a multi-line reason is not needed, and a line break in a log field is
 * how forged log lines start. Everything else of Unicode, including non-Latin scripts, is accepted.
 *
 * <p>A refusal is an {@link InvalidTextException}, which {@link ProblemJsonExceptionHandler}
 * answers with 400 {@code INVALID_REQUEST} naming the field, so every application refuses such text
 * the same way.
 */
public final class FreeText {

  private FreeText() {}

  /**
   * Whether {@code text} holds a control character (Unicode category Cc: U+0000-U+001F,
   * U+007F-U+009F).
   */
  public static boolean hasControlCharacter(CharSequence text) {
    if (text == null) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      if (Character.isISOControl(text.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code text} with every control character replaced by U+FFFD: for untrusted text an application
   * records rather than refuses (a refused grant's key id, say), so that recording it cannot fail.
   */
  public static String printable(String text) {
    if (!hasControlCharacter(text)) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(Character.isISOControl(c) ? '\uFFFD' : c);
    }
    return out.toString();
  }

  /**
   * Returns {@code text} when it holds no control character (null passes: whether a field is
   * required is the caller's rule).
   *
   * @throws InvalidTextException naming {@code field} otherwise
   */
  public static String requireNoControlCharacters(String field, String text) {
    if (hasControlCharacter(text)) {
      throw new InvalidTextException(field);
    }
    return text;
  }
}
