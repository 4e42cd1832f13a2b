package dev.fencepost.history;

import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The record types of a run directory: one JSON-lines file per type, named {@code <type>.jsonl}
 * (see {@link #TYPES}). Every record names its {@code source} (who wrote it: {@code lockdb}, {@code
 * worker-2}, {@code harness}, ...). Fields may be added later; unknown fields are ignored when
 * read. Required fields are checked here, so a bad line fails with its file and line number.
 *
 * <p>Two clocks, never mixed silently: {@code nanos}-style fields are {@code System.nanoTime()} on
 * the one host of the run (CLOCK_MONOTONIC, comparable across the JVMs of that host); {@code at}
 * fields are wall-clock instants, as the databases stamp them. {@code seq} is the order of one
 * source's own history (lock_event.id, an etcd revision, audit_event.id, ...).
 */
public final class Records {

  private Records() {}

  /**
   * The backend's grant history: one row of lockdb's lock_event, or one etcd put/delete. {@code
   * epoch} is the number of restores of the backend before the grant was issued (absent: none; see
   * {@link GrantEpochs}).
   */
  public record Grant(
      String source,
      String key,
      Long token,
      String kind,
      String session,
      Long seq,
      Instant at,
      Integer epoch) {
    public static final Set<String> KINDS =
        Set.of("ACQUIRED", "RELEASED", "REVOKED", "EXPIRED", "SESSION_CLOSED");

    public Grant {
      require(source, "source");
      require(key, "key");
      require(token, "token");
      kind = oneOf(kind, "kind", KINDS);
      require(seq, "seq");
      if (epoch != null && epoch < 0) {
        throw new IllegalArgumentException("epoch must not be negative, was " + epoch);
      }
    }

    /** A grant of a backend that has not been restored during the run. */
    public Grant(
        String source, String key, Long token, String kind, String session, Long seq, Instant at) {
      this(source, key, token, kind, session, seq, at, null);
    }

    /** {@link #epoch()}, 0 when absent. */
    int restoresBefore() {
      return epoch == null ? 0 : epoch;
    }

    boolean acquired() {
      return kind.equals("ACQUIRED");
    }
  }

  /** One lock call as the client saw it, invoke and completion on the host's monotonic clock. */
  public record ClientOp(
      String source,
      String worker,
      String op,
      String key,
      Long token,
      Long invokeNanos,
      Long completeNanos,
      String outcome) {
    public static final Set<String> OPS = Set.of("ACQUIRE", "RELEASE", "RENEW");
    public static final Set<String> OUTCOMES = Set.of("OK", "FAILED");

    public ClientOp {
      require(source, "source");
      require(worker, "worker");
      op = oneOf(op, "op", OPS);
      require(key, "key");
      require(invokeNanos, "invokeNanos");
      require(completeNanos, "completeNanos");
      outcome = oneOf(outcome, "outcome", OUTCOMES);
      if (outcome.equals("OK") && token == null) {
        throw new IllegalArgumentException("token is required when outcome is OK");
      }
      if (completeNanos < invokeNanos) {
        throw new IllegalArgumentException("completeNanos is before invokeNanos");
      }
    }

    boolean ok() {
      return outcome.equals("OK");
    }
  }

  /**
   * One decision of a guard: paydb's account fence ({@code PAYDB}) or the proxy's high-water and
   * uniqueness ({@code RAIL_PROXY}). {@code stored} is the fence or high-water the token was
   * compared with, when known. Ordered per guard and account by (at, seq, line).
   */
  public record GuardDecision(
      String source,
      String guard,
      String account,
      String payoutId,
      Long token,
      Long stored,
      String decision,
      String reason,
      String worker,
      Long seq,
      Long nanos,
      Instant at) {
    public static final Set<String> GUARDS = Set.of("PAYDB", "RAIL_PROXY");
    public static final Set<String> DECISIONS = Set.of("ACCEPTED", "REJECTED");

    public GuardDecision {
      require(source, "source");
      guard = oneOf(guard, "guard", GUARDS);
      require(account, "account");
      require(token, "token");
      decision = oneOf(decision, "decision", DECISIONS);
    }

    boolean accepted() {
      return decision.equals("ACCEPTED");
    }
  }

  /** One movement the rail stub received: the ground truth ({@code GET /rail/admin/movements}). */
  public record RailMovement(
      String source, String clientReference, String railReference, Long amountMinor, Instant at) {
    public RailMovement {
      require(source, "source");
      require(clientReference, "clientReference");
      require(railReference, "railReference");
    }
  }

  /** A worker's attempt at a side effect (CLAIM, SUBMIT, POST, ...) under a token. */
  public record Effect(
      String source,
      String worker,
      String payoutId,
      String account,
      String what,
      Long token,
      String outcome,
      Long nanos,
      Instant at) {
    public Effect {
      require(source, "source");
      require(worker, "worker");
      require(account, "account");
      what = upper(require(what, "what"));
      require(token, "token");
      outcome = outcome == null ? null : upper(outcome);
    }
  }

  /** Something the harness did to a process: SIGSTOP, SIGCONT, SIGKILL, RESTART, REVOKE, ... */
  public record Event(
      String source, String worker, String kind, String detail, Long nanos, Instant at) {
    public Event {
      require(source, "source");
      kind = upper(require(kind, "kind"));
    }
  }

  /** Final state of one payout (paydb.payout). */
  public record Payout(
      String source,
      String id,
      String account,
      String state,
      String clientReference,
      Long tokenStamp,
      String railReference) {
    public static final Set<String> STATES =
        Set.of(
            "PENDING",
            "CLAIMED",
            "RAIL_SUBMITTED",
            "RAIL_ACKED",
            "RAIL_AMBIGUOUS",
            "POSTED",
            "FAILED",
            "ABANDONED");

    public Payout {
      require(source, "source");
      require(id, "id");
      require(account, "account");
      state = oneOf(state, "state", STATES);
      require(clientReference, "clientReference");
    }
  }

  /** One accepted state transition (paydb.audit_event with from/to states), in seq order. */
  public record Transition(
      String source,
      String payoutId,
      String account,
      String from,
      String to,
      Long token,
      String actor,
      Long seq,
      Instant at) {
    public Transition {
      require(source, "source");
      require(payoutId, "payoutId");
      require(to, "to");
      require(seq, "seq");
    }
  }

  /** One leg of a ledger group (paydb.ledger_entry). */
  public record LedgerEntry(
      String source, String group, String account, Long signedAmount, String payoutId, Long token) {
    public LedgerEntry {
      require(source, "source");
      require(group, "group");
      require(account, "account");
      require(signedAmount, "signedAmount");
    }
  }

  /** Final state of one account (paydb.account). */
  public record Account(String source, String id, Long balance, Long fence) {
    public Account {
      require(source, "source");
      require(id, "id");
      require(balance, "balance");
    }
  }

  /**
   * One submission the proxy recorded and forwarded (proxydb.rail_submission, or
   * unguarded_submission with {@code guarded=false} in the negative-control experiment).
   */
  public record Submission(
      String source,
      String payoutId,
      String account,
      Long token,
      String outcome,
      String clientReference,
      Boolean guarded,
      Long seq,
      Instant at) {
    public Submission {
      require(source, "source");
      require(payoutId, "payoutId");
      require(account, "account");
      require(token, "token");
      require(clientReference, "clientReference");
      guarded = guarded == null ? Boolean.TRUE : guarded;
    }
  }

  /** File type name ({@code <name>.jsonl}) of each record class. */
  public static final Map<Class<?>, String> TYPES =
      Map.ofEntries(
          Map.entry(Grant.class, "grant"),
          Map.entry(ClientOp.class, "client_op"),
          Map.entry(GuardDecision.class, "guard_decision"),
          Map.entry(RailMovement.class, "rail_movement"),
          Map.entry(Effect.class, "effect"),
          Map.entry(Event.class, "event"),
          Map.entry(Payout.class, "payout"),
          Map.entry(Transition.class, "transition"),
          Map.entry(LedgerEntry.class, "ledger_entry"),
          Map.entry(Account.class, "account"),
          Map.entry(Submission.class, "submission"));

  static <T> T require(T value, String name) {
    if (value == null || (value instanceof String s && s.isBlank())) {
      throw new IllegalArgumentException(name + " is required");
    }
    return value;
  }

  static String oneOf(String value, String name, Set<String> allowed) {
    String v = upper(require(value, name));
    if (!allowed.contains(v)) {
      throw new IllegalArgumentException(name + " must be one of " + allowed + ", was " + value);
    }
    return v;
  }

  static String upper(String value) {
    return value.toUpperCase(Locale.ROOT);
  }
}
