package dev.fencepost.security;

/**
 * What a caller of a Fencepost service may be. A token carries these names in its roles claim
 * (local issuer) or gets them from {@code fencepost.security.subject-roles} (Kubernetes
 * service-account tokens); Spring Security sees each as the authority {@code ROLE_<NAME>}.
 * docs/security.md says which role may do what.
 */
public enum FencepostRole {
  /** A payout worker: holds locks while it executes payouts. */
  PAYOUT_WORKER,
  /** The reconciliation job: takes locks to read a consistent view, never repairs. */
  RECONCILER,
  /** A human operator: break-glass actions (revoke) and every management endpoint. */
  OPERATOR,
  /** The rail proxy, calling services on behalf of the rail path. */
  RAIL_PROXY;

  /** The Spring Security authority of this role: {@code ROLE_} and the name. */
  public String authority() {
    return "ROLE_" + name();
  }
}
