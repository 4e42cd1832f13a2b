package dev.fencepost.payment;

/**
 * The requested event is not allowed for the payout's current state, or not for this actor's role
 * ({@link PayoutTransitions}, FR-22, INV-08). Nothing changed. From a terminal state this is a
 * defect signal (a replay or cleanup job re-executing a completed payout); after a fresh re-read it
 * usually means another holder already moved the payout on, and the caller should move on too.
 */
public class IllegalTransitionException extends PaymentResourceException {

  private final PayoutId payoutId;
  private final AccountId accountId;
  private final PayoutState from;
  private final PayoutEvent event;
  private final Actor.Role role;
  private final PayoutTransitions.Refusal refusal;

  public IllegalTransitionException(
      PayoutId payoutId,
      AccountId accountId,
      PayoutState from,
      PayoutEvent event,
      Actor.Role role,
      PayoutTransitions.Refusal refusal) {
    super(
        "payout "
            + payoutId
            + ": "
            + event
            + " by "
            + role
            + " is refused in state "
            + from
            + " ("
            + refusal
            + ")");
    this.payoutId = payoutId;
    this.accountId = accountId;
    this.from = from;
    this.event = event;
    this.role = role;
    this.refusal = refusal;
  }

  public PayoutId payoutId() {
    return payoutId;
  }

  public AccountId accountId() {
    return accountId;
  }

  public PayoutState from() {
    return from;
  }

  public PayoutEvent event() {
    return event;
  }

  public Actor.Role role() {
    return role;
  }

  public PayoutTransitions.Refusal refusal() {
    return refusal;
  }

  @Override
  public String code() {
    return "ILLEGAL_TRANSITION";
  }
}
