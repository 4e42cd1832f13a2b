package dev.fencepost.history;

import dev.fencepost.history.Records.Account;
import dev.fencepost.history.Records.ClientOp;
import dev.fencepost.history.Records.Effect;
import dev.fencepost.history.Records.Event;
import dev.fencepost.history.Records.Grant;
import dev.fencepost.history.Records.GuardDecision;
import dev.fencepost.history.Records.LedgerEntry;
import dev.fencepost.history.Records.Payout;
import dev.fencepost.history.Records.RailMovement;
import dev.fencepost.history.Records.Submission;
import dev.fencepost.history.Records.Transition;
import java.time.Instant;

/**
 * A clean UC-03 history, written by hand: w1 claims payout p1 under token 5 and is frozen, its
 * lease expires, w2 acquires token 7, re-claims, submits and posts; w1 thaws and its submit is
 * fenced out by the proxy. Times are milliseconds after a base on both clocks.
 */
final class Histories {

  static final String KEY = "payout:acc-1";
  static final long BASE_NANOS = 1_000_000_000_000L;
  static final Instant BASE_AT = Instant.parse("2026-11-29T10:00:00Z");

  private Histories() {}

  static long nanos(long millis) {
    return BASE_NANOS + millis * 1_000_000L;
  }

  static Instant at(long millis) {
    return BASE_AT.plusMillis(millis);
  }

  static Grant grant(long seq, String kind, long token, String session, long millis) {
    return new Grant("lockdb", KEY, token, kind, session, seq, at(millis));
  }

  static ClientOp op(String worker, String op, Long token, long invoke, long complete, String out) {
    return new ClientOp(worker, worker, op, KEY, token, nanos(invoke), nanos(complete), out);
  }

  static Effect effect(String worker, String what, long token, String outcome, long millis) {
    return new Effect(
        worker, worker, "p1", "acc-1", what, token, outcome, nanos(millis), at(millis));
  }

  static GuardDecision guard(
      String guard, long token, Long stored, String decision, String worker, long millis) {
    return new GuardDecision(
        "test",
        guard,
        "acc-1",
        "p1",
        token,
        stored,
        decision,
        null,
        worker,
        null,
        null,
        at(millis));
  }

  static Transition transition(long seq, String from, String to, long token, long millis) {
    return new Transition("paydb", "p1", "acc-1", from, to, token, "w", seq, at(millis));
  }

  static LedgerEntry leg(String group, String account, long amount, String payout, Long token) {
    return new LedgerEntry("paydb", group, account, amount, payout, token);
  }

  static History clean() {
    History h = new History();
    h.add(grant(1, "ACQUIRED", 5, "s1", 1))
        .add(grant(2, "EXPIRED", 5, "s1", 4_000))
        .add(grant(3, "ACQUIRED", 7, "s2", 4_000))
        .add(grant(4, "RELEASED", 7, "s2", 8_500));

    h.add(op("w1", "ACQUIRE", 5L, 0, 2, "OK"))
        .add(op("w2", "ACQUIRE", null, 100, 150, "FAILED"))
        .add(op("w2", "ACQUIRE", 7L, 3_900, 4_002, "OK"))
        .add(op("w2", "RELEASE", 7L, 8_400, 8_501, "OK"))
        .add(op("w1", "RELEASE", 5L, 9_600, 9_610, "FAILED"));

    h.add(effect("w1", "CLAIM", 5, "OK", 10))
        .add(effect("w2", "CLAIM", 7, "OK", 4_010))
        .add(effect("w2", "SUBMIT", 7, "OK", 4_020))
        .add(effect("w2", "POST", 7, "OK", 4_300))
        .add(effect("w1", "SUBMIT", 5, "FENCED_OUT", 9_500));

    h.add(guard("PAYDB", 5, 0L, "ACCEPTED", "w1", 10))
        .add(guard("PAYDB", 7, 5L, "ACCEPTED", "w2", 4_010))
        .add(guard("RAIL_PROXY", 7, null, "ACCEPTED", "w2", 4_020))
        .add(guard("PAYDB", 7, 7L, "ACCEPTED", "w2", 4_300))
        .add(guard("RAIL_PROXY", 5, 7L, "REJECTED", "w1", 9_500));

    h.add(new Event("harness", "w1", "SIGSTOP", "after claim", nanos(20), at(20)))
        .add(new Event("harness", "w1", "SIGCONT", null, nanos(9_400), at(9_400)));

    h.add(new RailMovement("rail-stub", "fp-p1", "rr-1", 2_500L, at(4_100)));
    h.add(new Submission("proxydb", "p1", "acc-1", 7L, "ACKED", "fp-p1", true, 1L, at(4_020)));
    h.add(new Payout("paydb", "p1", "acc-1", "POSTED", "fp-p1", 7L, "rr-1"));

    h.add(transition(1, "PENDING", "CLAIMED", 5, 10))
        .add(transition(2, "CLAIMED", "CLAIMED", 7, 4_010))
        .add(transition(3, "CLAIMED", "RAIL_SUBMITTED", 7, 4_020))
        .add(transition(4, "RAIL_SUBMITTED", "RAIL_ACKED", 7, 4_200))
        .add(transition(5, "RAIL_ACKED", "POSTED", 7, 4_300));

    h.add(leg("g-fund", "acc-1", 10_000, null, null))
        .add(leg("g-fund", "funding-source", -10_000, null, null))
        .add(leg("g-p1", "acc-1", -2_500, "p1", 7L))
        .add(leg("g-p1", "payout-clearing", 2_500, "p1", 7L));
    h.add(new Account("paydb", "acc-1", 7_500L, 7L))
        .add(new Account("paydb", "funding-source", -10_000L, 0L))
        .add(new Account("paydb", "payout-clearing", 2_500L, 0L));
    return h;
  }
}
