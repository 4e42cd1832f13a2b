package dev.fencepost.payment.impl;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutState;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The append-only audit trail (FR-30), written in the same transaction as the change it records, so
 * an audited change and its record commit or vanish together.
 */
public final class AuditLog {

  /** The role fixture loading acts under; the only one allowed to act without a token. */
  public static final String INTAKE_ROLE = "INTAKE";

  private final JdbcClient jdbc;

  public AuditLog(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * @param token null only for fixture actions
   * @param payout null for account-level actions
   */
  public void record(
      String actorRole,
      String actorId,
      Long token,
      AccountId account,
      PayoutId payout,
      String action,
      PayoutState from,
      PayoutState to,
      String reason) {
    jdbc.sql(
            """
            INSERT INTO audit_event (actor_role, actor_id, fencing_token, account_id, payout_id,
                                     action, from_state, to_state, reason)
            VALUES (:role, :actor, :token, :account, :payout, :action, :from, :to, :reason)""")
        .param("role", actorRole)
        .param("actor", actorId)
        .param("token", token)
        .param("account", account.value())
        .param("payout", payout == null ? null : payout.value())
        .param("action", action)
        .param("from", from == null ? null : from.name())
        .param("to", to == null ? null : to.name())
        .param("reason", reason)
        .update();
  }
}
