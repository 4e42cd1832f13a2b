package dev.fencepost.reconciliation;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every window, exactly once (ADR 0177): what a run of {@code reconciliationJob} without a window
 * does. It reconciles, oldest first, every closed window since the last one whose first pass
 * completed (after missed runs or an outage; on the very first run, only the window that closed
 * last), then re-reads each window whose late-entry grace has passed, at most {@code
 * maxWindowsPerRun} passes in all; each pass is one {@link Reconciler#run} recorded in the {@link
 * WindowLedger}. A pass that fails stops the run (the failure is recorded and thrown): the next run
 * starts again from it, so no window is skipped. Windows are aligned to their length.
 */
public class CatchUp {

  private static final Logger log = LoggerFactory.getLogger(CatchUp.class);

  /** One pass done by this run. */
  public record Done(
      ReconciliationWindow window, WindowLedger.Pass pass, ReconciliationReport report) {}

  private final Reconciler reconciler;
  private final WindowLedger ledger;
  private final CatchUpSettings settings;
  private final Clock clock;

  public CatchUp(
      Reconciler reconciler, WindowLedger ledger, CatchUpSettings settings, Clock clock) {
    this.reconciler = reconciler;
    this.ledger = ledger;
    this.settings = settings;
    this.clock = clock;
  }

  /** The passes due at {@code now}, in the order they run, at most {@code maxWindowsPerRun}. */
  public List<Planned> plan(Instant now) {
    List<Planned> plan = new ArrayList<>();
    Duration length = settings.windowLength();
    Instant lastClosedEnd = align(now, length);
    Instant next = ledger.lastCompletedFirstPassEnd().orElse(lastClosedEnd.minus(length));
    for (Instant from = next;
        !from.plus(length).isAfter(lastClosedEnd) && plan.size() < settings.maxWindowsPerRun();
        from = from.plus(length)) {
      plan.add(
          new Planned(new ReconciliationWindow(from, from.plus(length)), WindowLedger.Pass.FIRST));
    }
    int room = settings.maxWindowsPerRun() - plan.size();
    if (room > 0) {
      for (ReconciliationWindow w :
          ledger.dueForReread(now.minus(settings.lateEntryGrace()), room)) {
        plan.add(new Planned(w, WindowLedger.Pass.REREAD));
      }
    }
    return plan;
  }

  /**
   * The passes due at {@code now}, as {@link #plan}, warning ({@code
   * reconciliation.catch_up_behind}) when more closed windows are left than one run reconciles.
   */
  public List<Planned> due(Instant now) {
    List<Planned> plan = plan(now);
    long behind = behind(now);
    if (behind > 0) {
      log.atWarn()
          .addKeyValue("event", "reconciliation.catch_up_behind")
          .addKeyValue("windowsLeft", behind)
          .addKeyValue("maxWindowsPerRun", settings.maxWindowsPerRun())
          .log("more closed windows than one run reconciles; the next run goes on");
    }
    return plan;
  }

  /** A pass to run. */
  public record Planned(ReconciliationWindow window, WindowLedger.Pass pass) {}

  /** The catch-up's clock's instant: when a plan is made. */
  Instant now() {
    return clock.instant();
  }

  /** Runs the passes due now; see the class comment. */
  public List<Done> run(String triggeredBy) {
    List<Planned> plan = due(clock.instant());
    List<Done> done = new ArrayList<>();
    for (Planned p : plan) {
      if (!ledger.start(p.window(), p.pass(), clock.instant())) {
        continue;
      }
      ReconciliationReport report;
      try {
        report = reconciler.run(p.window(), triggeredBy + ":" + p.pass().name().toLowerCase());
      } catch (RuntimeException e) {
        try {
          ledger.fail(p.window(), p.pass(), e.toString(), clock.instant());
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
      ledger.complete(p.window(), p.pass(), report);
      log.atInfo()
          .addKeyValue("event", "reconciliation.window_completed")
          .addKeyValue("windowFrom", p.window().from())
          .addKeyValue("windowTo", p.window().to())
          .addKeyValue("pass", p.pass().name())
          .addKeyValue("runId", report.runId())
          .addKeyValue("entriesRead", report.reads().entriesRead())
          .addKeyValue("entriesNew", report.reads().entriesNew())
          .addKeyValue("submissionsRead", report.reads().submissionsRead())
          .addKeyValue("total", report.total())
          .log("reconciliation window completed");
      done.add(new Done(p.window(), p.pass(), report));
    }
    return done;
  }

  /** How many closed windows' first passes are left beyond this run's plan. */
  private long behind(Instant now) {
    Duration length = settings.windowLength();
    Instant lastClosedEnd = align(now, length);
    Instant next = ledger.lastCompletedFirstPassEnd().orElse(lastClosedEnd.minus(length));
    long closed = Math.max(0, Duration.between(next, lastClosedEnd).dividedBy(length));
    return Math.max(0, closed - settings.maxWindowsPerRun());
  }

  /** The start of the window {@code instant} is in. */
  static Instant align(Instant instant, Duration length) {
    long ms = length.toMillis();
    return Instant.ofEpochMilli(Math.floorDiv(instant.toEpochMilli(), ms) * ms);
  }
}
