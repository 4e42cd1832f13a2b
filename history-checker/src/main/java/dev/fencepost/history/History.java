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
import java.util.ArrayList;
import java.util.List;

/** Everything one run recorded, each list in file order. Mutable only while it is being built. */
public final class History {
  public final List<Grant> grants = new ArrayList<>();
  public final List<ClientOp> clientOps = new ArrayList<>();
  public final List<GuardDecision> guardDecisions = new ArrayList<>();
  public final List<RailMovement> railMovements = new ArrayList<>();
  public final List<Effect> effects = new ArrayList<>();
  public final List<Event> events = new ArrayList<>();
  public final List<Payout> payouts = new ArrayList<>();
  public final List<Transition> transitions = new ArrayList<>();
  public final List<LedgerEntry> ledgerEntries = new ArrayList<>();
  public final List<Account> accounts = new ArrayList<>();
  public final List<Submission> submissions = new ArrayList<>();

  /** Unterminated, unreadable last lines of files (a writer killed mid-line), as file:line. */
  public final List<String> tornLines = new ArrayList<>();

  /** Adds one record to the list of its type. */
  public History add(Object record) {
    listFor(record.getClass()).add(record);
    return this;
  }

  @SuppressWarnings("unchecked")
  List<Object> listFor(Class<?> type) {
    List<?> list;
    if (type == Grant.class) {
      list = grants;
    } else if (type == ClientOp.class) {
      list = clientOps;
    } else if (type == GuardDecision.class) {
      list = guardDecisions;
    } else if (type == RailMovement.class) {
      list = railMovements;
    } else if (type == Effect.class) {
      list = effects;
    } else if (type == Event.class) {
      list = events;
    } else if (type == Payout.class) {
      list = payouts;
    } else if (type == Transition.class) {
      list = transitions;
    } else if (type == LedgerEntry.class) {
      list = ledgerEntries;
    } else if (type == Account.class) {
      list = accounts;
    } else if (type == Submission.class) {
      list = submissions;
    } else {
      throw new IllegalArgumentException("not a history record: " + type.getName());
    }
    return (List<Object>) list;
  }
}
