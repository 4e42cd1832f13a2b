package dev.fencepost.railproxy;

/**
 * What the proxy knows about a forwarded submission (FR-20). A row with no outcome yet means the
 * proxy stopped between forwarding and recording; the payout worker treats it as TIMEOUT (UC-04).
 */
public enum Outcome {
  /** The rail answered 201 with its reference: money has left. */
  ACKED,
  /** The rail answered 422, a business decline: no money moved. */
  REJECTED,
  /**
   * Unknown: timeout, connection failure or reset, empty or unparseable response, 5xx or any other
   * status. Money may have moved; only a lookup or a human resolves it, never a retry (UC-05).
   */
  TIMEOUT
}
