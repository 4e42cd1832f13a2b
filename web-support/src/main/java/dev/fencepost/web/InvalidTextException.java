package dev.fencepost.web;

/**
 * Free text with a control character in it ({@link FreeText}): 400 {@code INVALID_REQUEST} with the
 * {@code field}, and nothing done.
 */
public final class InvalidTextException extends RuntimeException {

  private final String field;

  public InvalidTextException(String field) {
    super(field + " must not contain control characters (NUL, tab, line breaks, escapes)");
    this.field = field;
  }

  /** The request field that holds the control character. */
  public String field() {
    return field;
  }
}
