package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.payment.Payout;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The comparison a page at a time (ADR 0187): the window's submissions are copied into paydb for
 * the length of one comparison and gone after it, after a failed one too; and what a run finds does
 * not depend on how many submissions, references and postings it compares a page.
 */
@Tag("FR-26")
class WindowSubmissionCopyTest extends ReconciliationTestBase {

  @Test
  void theWindowsSubmissionsAreCopiedForTheComparisonAndGoneAfterIt() {
    for (int i = 0; i < 3; i++) {
      world.execute(world.pending(), World.Until.POSTED);
    }

    ReconciliationReport report = world.reconciler(world.settings()).run(world.window(), "test");

    assertThat(report.reads().submissionsRead()).isEqualTo(3);
    assertThat(report.clean()).as("findings %s", report.findings()).isTrue();
    assertThat(copiedRows()).isZero();
  }

  @Test
  void aComparisonThatFailsAfterAPageOfSubmissionsLeavesNoCopyAndTheRunFailed() {
    for (int i = 0; i < 3; i++) {
      world.execute(world.pending(), World.Until.POSTED);
    }
    SubmissionSource proxy = proxy();
    SubmissionSource goneAfterOnePage =
        new SubmissionSource() {
          @Override
          public void forEachPage(ReconciliationWindow window, Consumer<List<Submission>> each) {
            proxy.forEachPage(
                window,
                page -> {
                  each.accept(page);
                  throw new SourceUnavailableException("the proxy went away after a page");
                });
          }

          @Override
          public Optional<Submission> submission(String payoutId) {
            return proxy.submission(payoutId);
          }
        };

    assertThatThrownBy(() -> reconciler(goneAfterOnePage, 500).run(world.window(), "test"))
        .isInstanceOf(SourceUnavailableException.class);

    assertThat(copiedRows()).isZero();
    assertThat(world.sql.sql("SELECT status FROM reconciliation_run").query(String.class).single())
        .isEqualTo("FAILED");
  }

  @Test
  void whatARunFindsDoesNotDependOnThePageSize() {
    for (int i = 0; i < 3; i++) {
      world.execute(world.pending(), World.Until.POSTED);
    }
    world.execute(world.pending(), World.Until.ACKED_NOT_POSTED);
    Payout rogue = world.pending();
    world.postedByARogueWorker(rogue, "rr-" + rogue.id());
    Payout bypassed = world.pending();
    world.railPost(bypassed.clientReference(), bypassed.amountMinor(), bypassed.beneficiaryRef());
    world.railPost("fp-not-one-of-ours", 1_234, "ben-bypass");
    ReconciliationWindow window = world.window();
    Map<Discrepancy, Long> expected =
        Map.of(
            Discrepancy.SUBMISSION_WITHOUT_POSTING, 1L,
            Discrepancy.POSTING_WITHOUT_SUBMISSION, 1L,
            Discrepancy.RAIL_MOVEMENT_WITHOUT_SUBMISSION, 1L,
            Discrepancy.MOVEMENT_WITHOUT_PAYOUT, 1L);

    for (int pageSize : new int[] {1, 2, 500}) {
      ReconciliationReport report = reconciler(proxy(), pageSize).run(window, "page " + pageSize);

      DetectionTest.assertOnly(report, expected);
      assertThat(report.reads().submissionsRead()).as("page %d", pageSize).isEqualTo(4);
    }
    assertThat(copiedRows()).isZero();
  }

  private long copiedRows() {
    return world
        .sql
        .sql("SELECT count(*) FROM reconciliation_window_submission")
        .query(Long.class)
        .single();
  }

  private ProxyReadClient proxy() {
    return world.proxyReads();
  }

  /**
   * The world's reconciler with its submissions from {@code submissions}, every page of {@code
   * pageSize}; the acknowledged payout is past its posting grace.
   */
  private Reconciler reconciler(SubmissionSource submissions, int pageSize) {
    return world.pagedReconciler(
        world.settings().withPostingGrace(Duration.ofMillis(1)),
        submissions,
        pageSize,
        pageSize,
        pageSize);
  }
}
