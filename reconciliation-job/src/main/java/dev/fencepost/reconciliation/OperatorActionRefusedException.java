package dev.fencepost.reconciliation;

/**
 * An operator action that was not performed; nothing in paydb changed. {@code code} is stable:
 * INVALID_REQUEST, PAYOUT_NOT_FOUND, ILLEGAL_TRANSITION, WITHIN_SLA, ACCOUNT_BUSY, STALE_TOKEN,
 * LOCK_UNAVAILABLE.
 */
public class OperatorActionRefusedException extends RuntimeException {

  private final String code;

  public OperatorActionRefusedException(String code, String message) {
    super(message);
    this.code = code;
  }

  public String code() {
    return code;
  }
}
