package dev.fencepost.railstub;

/**
 * What the stub does with one payment request (FR-21, UC-05). Whether money moves is the point of
 * each mode: the caller of an ambiguous mode cannot tell from its own side.
 */
public enum FaultMode {
  /** Settle normally after the nominal latency: 201 and a new movement. */
  NONE(true),
  /** Business decline: 422 with a decline code, no movement. */
  DECLINE(false),
  /** Settle normally after the nominal latency plus the configured extra delay. */
  DELAY(true),
  /** Hold the request past the caller's timeout, then drop the connection; no movement. */
  TIMEOUT_BEFORE_SETTLE(false),
  /** Record the movement, then hold past the caller's timeout and drop the connection. */
  TIMEOUT_AFTER_SETTLE(true),
  /** Record the movement, then answer 500. */
  ERROR_AFTER_SETTLE(true),
  /** Drop the connection at once without any response; no movement. */
  RESET(false);

  private final boolean moneyMoves;

  FaultMode(boolean moneyMoves) {
    this.moneyMoves = moneyMoves;
  }

  /** True when a request handled in this mode creates a movement. */
  public boolean moneyMoves() {
    return moneyMoves;
  }
}
