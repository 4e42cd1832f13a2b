package dev.fencepost.payment;

import dev.fencepost.lock.FencingToken;

/** Calls the named {@link PaymentResource} method for each event, as a job would. */
final class Events {

  private Events() {}

  static Payout invoke(
      PaymentResource resource, PayoutEvent event, PayoutId id, FencingToken token, Actor actor) {
    return switch (event) {
      case CLAIM, FUNDS_INSUFFICIENT -> resource.claim(id, token, actor);
      case RECLAIM -> resource.reclaim(id, token, actor);
      case SUBMIT_ACCEPTED -> resource.markSubmitted(id, token, actor);
      case RAIL_ACKED -> resource.recordRailAcked(id, token, actor, "rail-ref-1");
      case RAIL_DECLINED -> resource.recordRailDeclined(id, token, actor, "AC04");
      case RAIL_TIMEOUT -> resource.recordRailTimeout(id, token, actor, "read timeout");
      case OUTCOME_MISSING -> resource.recordOutcomeMissing(id, token, actor);
      case POST -> resource.post(id, token, actor);
      case LOOKUP_SETTLED -> resource.resolveSettled(id, token, actor, "rail-ref-2");
      case LOOKUP_ABSENT -> resource.resolveAbsent(id, token, actor, "absent after 24h window");
      case OPERATOR_CANCEL -> resource.cancel(id, token, actor, "customer request");
      case OPERATOR_ABANDON -> resource.abandon(id, token, actor, "SLA exceeded, finance ticket");
    };
  }

  static Actor actorFor(Actor.Role role) {
    return new Actor(role, role.name().toLowerCase() + "-1");
  }
}
