package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.payment.Payout;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A run's bounds (ADR 0168): a window longer than the maximum is refused before anything is read or
 * recorded, at the job's launch as in the API, and the rail's statements and the ledger postings
 * are read in pages, down to one item per page, without missing anything.
 */
class ReconciliationBoundsTest extends ReconciliationTestBase {

  /** The actuator's port: the management port when it has its own, else the server's. */
  @Value("${local.management.port:${local.server.port}}")
  int managementPort;

  @Test
  void aWindowLongerThanTheMaximumIsRefusedBeforeTheRunStartsAndRecordsNothing() {
    ReconciliationSettings settings = world.settings().withMaxWindow(Duration.ofHours(1));
    Instant to = Instant.now();
    ReconciliationWindow twoHours = new ReconciliationWindow(to.minus(Duration.ofHours(2)), to);
    StoreSnapshot before = StoreSnapshot.of(world);

    assertThatThrownBy(() -> world.reconciler(settings).run(twoHours, "test"))
        .isInstanceOf(WindowTooLongException.class)
        .hasMessageContaining("max-window");

    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
    assertThat(world.sql.sql("SELECT count(*) FROM reconciliation_run").query(Long.class).single())
        .isZero();
    assertThat(events.named("reconciliation.window_refused")).hasSize(1);
    // The maximum itself is allowed.
    ReconciliationWindow oneHour = new ReconciliationWindow(to.minus(Duration.ofHours(1)), to);
    assertThat(world.reconciler(settings).run(oneHour, "test").runId()).isNotNull();
  }

  @Test
  void aJobLaunchedWithAWindowLongerThanTheMaximumIs400AndNoExecutionStarts() {
    long executions = executions();
    Instant to = Instant.now();
    Instant from = to.minus(Duration.ofHours(25));
    String jobs = "http://127.0.0.1:" + managementPort + "/actuator/batchjobs/reconciliationJob";

    HttpResponse<String> refused =
        World.send(
            "POST", jobs, "{\"parameters\":\"windowFrom=" + from + ",windowTo=" + to + "\"}");

    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
    assertThat(refused.body()).contains("INVALID_PARAMETERS").contains("max-window");
    assertThat(executions()).isEqualTo(executions);
  }

  /**
   * The second movement of a reference is in the window, its first in the window before, which was
   * reconciled: the reference's recorded statement history is compared, the window read one entry
   * per page, and the duplicate is found (ADR 0176).
   */
  @Test
  void withOneEntryPerPageADuplicateWhoseFirstMovementWasInAnEarlierWindowIsStillFound() {
    Payout payout = world.execute(world.pending(), World.Until.POSTED);
    Instant windowStart = Instant.now();
    ReconciliationReport earlier =
        paged(1, 500).run(new ReconciliationWindow(world.startedAt, windowStart), "test");
    assertThat(earlier.counts().get(Discrepancy.DUPLICATE_SUBMISSION)).isZero();
    world.submit(world.stack.unguardedProxyUrl(), payout, payout.tokenStamp());
    assertThat(world.movementCount(payout.clientReference())).isEqualTo(2);
    ReconciliationWindow window =
        new ReconciliationWindow(windowStart, Instant.now().plusSeconds(1));

    ReconciliationReport report = paged(1, 500).run(window, "test");

    assertThat(report.counts().get(Discrepancy.DUPLICATE_SUBMISSION)).isEqualTo(1L);
    assertThat(report.findings())
        .filteredOn(f -> f.discrepancy() == Discrepancy.DUPLICATE_SUBMISSION)
        .singleElement()
        .satisfies(f -> assertThat(f.detail()).startsWith("2 rail movements"));
  }

  /** Three postings no submission accounts for, read one per page: all three are findings. */
  @Test
  void withOnePostingPerPageEveryPostingOfTheWindowIsCompared() {
    for (int i = 0; i < 3; i++) {
      Payout rogue = world.pending();
      world.postedByARogueWorker(rogue, "rr-" + rogue.id());
    }

    ReconciliationReport report = paged(500, 1).run(world.window(), "test");

    assertThat(report.counts().get(Discrepancy.POSTING_WITHOUT_SUBMISSION)).isEqualTo(3L);
  }

  /**
   * paydb cannot store NUL (it was an unexpected error), and a line break is not a reason (ADR
   * 0166): refused as INVALID_REQUEST before the payout is read or its account locked.
   */
  @Test
  void anOperatorReasonOrNameWithAControlCharacterIsRefusedAndChangesNothing() {
    Payout payout = world.pending();
    OperatorActions actions = world.operatorActions(world.settings());
    StoreSnapshot before = StoreSnapshot.of(world);

    for (String reason : new String[] {"stuck\u0000", "line\nbreak", "tab\there"}) {
      assertThatThrownBy(() -> actions.cancel(payout.id().toString(), "erin", reason))
          .isInstanceOfSatisfying(
              OperatorActionRefusedException.class,
              e -> assertThat(e.code()).isEqualTo("INVALID_REQUEST"));
    }
    assertThatThrownBy(() -> actions.cancel(payout.id().toString(), "er\u0000in", "stuck"))
        .isInstanceOfSatisfying(
            OperatorActionRefusedException.class,
            e -> assertThat(e.code()).isEqualTo("INVALID_REQUEST"));

    assertThat(StoreSnapshot.of(world)).isEqualTo(before);
  }

  /** The world's reconciler, with the statement's and the postings' page sizes given. */
  private Reconciler paged(int statementPage, int postingPage) {
    return world.pagedReconciler(
        world.settings(), world.proxyReads(), statementPage, postingPage, Detector.PAGE);
  }

  private static long executions() {
    return JdbcClient.create(STACK.batchdb.dataSource())
        .sql("SELECT count(*) FROM batch_job_execution")
        .query(Long.class)
        .single();
  }
}
