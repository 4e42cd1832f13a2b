package dev.fencepost.payment;

import java.util.regex.Pattern;

/**
 * Who is acting, for the audit trail (FR-30) and for the "who may trigger" column of the transition
 * table (the payout state machine, docs/payment-resource.md). Every actor, operators included, also
 * presents a fencing token from a grant on the account's lock (ADR 0037); the role decides which
 * events it may trigger.
 *
 * @param role what kind of party acts
 * @param id a stable identity, e.g. a worker's pod name or an operator's user name
 */
public record Actor(Role role, String id) {

  private static final Pattern ID = Pattern.compile("\\S{1,128}");

  /** The three parties the table distinguishes. */
  public enum Role {
    /** A payout-executor worker holding {@code payout:{account}}. */
    WORKER,
    /** The reconciliation job resolving an ambiguous payout by rail lookup (UC-05). */
    RECONCILER,
    /** A human, through the operator tool, with a recorded reason (UC-05, UC-06). */
    OPERATOR
  }

  public Actor {
    if (role == null) {
      throw new InvalidPaymentRequestException("an actor needs a role");
    }
    if (id == null || !ID.matcher(id).matches()) {
      throw new InvalidPaymentRequestException(
          "an actor id is 1 to 128 non-blank characters, got " + Checks.quote(id));
    }
  }

  public static Actor worker(String id) {
    return new Actor(Role.WORKER, id);
  }

  public static Actor reconciler(String id) {
    return new Actor(Role.RECONCILER, id);
  }

  public static Actor operator(String id) {
    return new Actor(Role.OPERATOR, id);
  }

  @Override
  public String toString() {
    return role + ":" + id;
  }
}
