package dev.fencepost.payment;

/**
 * Whether the resource fence is enforced (FR-29, ADR 0035). There is no configuration property that
 * switches it off: only code that deliberately builds {@link PaymentResourceOptions} with {@link
 * #EXPERIMENT_DISABLED} can, and the resource then logs a WARN {@code fencing.disabled} event when
 * it is constructed and exposes gauge {@code fencepost.fencing.enabled} = 0.
 */
public enum FencingMode {
  /** The default: a token below the account's fence changes nothing (ADR 0036, INV-05). */
  ENFORCED,
  /**
   * The negative control of UC-03 only: the fence is still advanced (never lowered), but a stale
   * token is no longer refused, so a stale holder's write lands. Never for a real deployment.
   */
  EXPERIMENT_DISABLED
}
