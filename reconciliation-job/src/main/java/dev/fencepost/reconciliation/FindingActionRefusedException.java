package dev.fencepost.reconciliation;

/**
 * A finding action that was not performed; nothing changed. {@code code} is stable:
 * INVALID_REQUEST, FINDING_NOT_FOUND, ILLEGAL_TRANSITION (ADR 0179).
 */
public class FindingActionRefusedException extends RuntimeException {

  private final String code;

  public FindingActionRefusedException(String code, String message) {
    super(message);
    this.code = code;
  }

  public String code() {
    return code;
  }
}
