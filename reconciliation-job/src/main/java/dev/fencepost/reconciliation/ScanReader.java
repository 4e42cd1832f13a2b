package dev.fencepost.reconciliation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.springframework.batch.core.ExitStatus;
import org.springframework.batch.core.listener.StepExecutionListener;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.batch.infrastructure.item.ExecutionContext;
import org.springframework.batch.infrastructure.item.ItemStreamReader;

/**
 * The {@code entries} step's reader (ADR 0178): before the step it reads the job's plan (the window
 * passes the {@code plan} step chose, in the job's execution context, so a restarted job reads the
 * same passes) and makes the {@link StatementScan.EntryReader} of this step execution; the step's
 * thread then delegates to it. One per step execution and thread: two executions of the job at once
 * each have their own.
 */
final class ScanReader
    implements ItemStreamReader<StatementScan.EntryFacts>, StepExecutionListener {

  /** The plan's key in the job's execution context. */
  static final String PLAN = "reconciliation.plan";

  private final StatementScan scan;
  private final ThreadLocal<StatementScan.EntryReader> current = new ThreadLocal<>();

  ScanReader(StatementScan scan) {
    this.scan = scan;
  }

  /**
   * One pass of a plan: a window, its pass (FIRST, REREAD, or GIVEN for a given window), its scan.
   */
  record Planned(ReconciliationWindow window, String pass, String scanKey) {}

  static String encode(List<Planned> plan) {
    List<String> parts = new ArrayList<>();
    for (Planned p : plan) {
      parts.add(p.window().from() + "|" + p.window().to() + "|" + p.pass() + "|" + p.scanKey());
    }
    return String.join(";", parts);
  }

  static List<Planned> decode(String text) {
    List<Planned> plan = new ArrayList<>();
    if (text == null || text.isEmpty()) {
      return plan;
    }
    for (String part : text.split(";")) {
      String[] f = part.split("\\|", 4);
      plan.add(
          new Planned(
              new ReconciliationWindow(Instant.parse(f[0]), Instant.parse(f[1])), f[2], f[3]));
    }
    return plan;
  }

  @Override
  public void beforeStep(StepExecution stepExecution) {
    List<StatementScan.Pass> passes = new ArrayList<>();
    for (Planned p :
        decode(stepExecution.getJobExecution().getExecutionContext().getString(PLAN, ""))) {
      passes.add(new StatementScan.Pass(p.window(), p.scanKey()));
    }
    current.set(scan.reader(passes));
  }

  @Override
  public ExitStatus afterStep(StepExecution stepExecution) {
    current.remove();
    return null;
  }

  @Override
  public void open(ExecutionContext context) {
    current.get().open(context);
  }

  @Override
  public void update(ExecutionContext context) {
    current.get().update(context);
  }

  @Override
  public void close() {
    StatementScan.EntryReader reader = current.get();
    if (reader != null) {
      reader.close();
    }
  }

  @Override
  public StatementScan.EntryFacts read() {
    return current.get().read();
  }
}
