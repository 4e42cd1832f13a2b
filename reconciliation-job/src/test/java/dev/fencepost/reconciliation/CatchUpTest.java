package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.payment.Payout;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every window, exactly once (ADR 0177): after missed runs the next run reconciles every closed
 * window since the last completed one, oldest first, at most {@code max-windows-per-run}; each pass
 * is recorded with what it read and found; running again finds nothing to do, and re-running a
 * window never duplicates a finding; an entry that reaches its window's statement late is
 * reconciled by the window's re-read. The clock the catch-up plans with is fixed, hours ahead of
 * the stores' own clocks, so that hours pass without waiting for them. The proxy is shared with the
 * other test classes, whose submissions of the same hours are in these windows too: the assertions
 * are about what this test's statement entries show.
 */
@Tag("UC-07")
@Tag("A-10")
class CatchUpTest extends ReconciliationTestBase {

  private static final Duration HOUR = Duration.ofHours(1);

  /** The start of the hour the test runs in. */
  Instant thisHour;

  @BeforeEach
  void hours() {
    thisHour = CatchUp.align(Instant.now(), HOUR);
  }

  @Test
  void afterThreeMissedHourlyRunsTheNextRunReconcilesEveryWindowOnceOldestFirst() {
    // The last run that happened: at thisHour - 3h, which reconciled the hour before it.
    // A grace longer than the test's hours: no re-read is due in it.
    Duration grace = Duration.ofHours(6);
    List<CatchUp.Done> last = catchUp(24, grace, at(thisHour.minus(HOUR.multipliedBy(3)))).run("t");
    assertThat(last).extracting(CatchUp.Done::window).containsExactly(hour(-4));
    // Money that left this hour: one payout paid, and a movement around the proxy.
    Payout paid = world.execute(world.pending(), World.Until.POSTED);
    Payout bypassed = world.pending();
    world.railPost(bypassed.clientReference(), bypassed.amountMinor(), bypassed.beneficiaryRef());

    // The runs at -2h, -1h and 0h were missed; the one at +1h catches up.
    CatchUp catchUp = catchUp(24, grace, at(thisHour.plus(HOUR)));
    List<CatchUp.Done> done = catchUp.run("t");

    assertThat(done)
        .extracting(CatchUp.Done::window)
        .containsExactly(hour(-3), hour(-2), hour(-1), hour(0));
    assertThat(done).allSatisfy(d -> assertThat(d.pass()).isEqualTo(WindowLedger.Pass.FIRST));
    assertThat(done.get(3).report().reads().entriesRead()).isEqualTo(2);
    assertThat(done.get(3).report().count(Discrepancy.RAIL_MOVEMENT_WITHOUT_SUBMISSION))
        .isEqualTo(1);
    assertThat(done.subList(0, 3))
        .allSatisfy(
            d ->
                assertThat(d.report().count(Discrepancy.RAIL_MOVEMENT_WITHOUT_SUBMISSION))
                    .isZero());
    List<WindowLedger.Row> rows = new WindowLedger(world.paydb).rows();
    assertThat(rows).hasSize(5).allSatisfy(r -> assertThat(r.status()).isEqualTo("COMPLETED"));
    assertThat(rows.get(4).entriesRead()).isEqualTo(2L);
    assertThat(rows.get(4).submissionsRead()).isGreaterThanOrEqualTo(1L);
    assertThat(rows.get(4).findingCount()).isGreaterThanOrEqualTo(1L);
    assertThat(issues()).containsExactly(Map.entry("RAIL_MOVEMENT_WITHOUT_SUBMISSION", 1L));

    // Nothing is due again until the re-read; and reconciling a window again is idempotent.
    assertThat(catchUp.run("t")).isEmpty();
    world.reconciler(world.settings()).run(hour(0), "again");
    assertThat(issues()).containsExactly(Map.entry("RAIL_MOVEMENT_WITHOUT_SUBMISSION", 1L));
    assertThat(
            world
                .sql
                .sql(
                    "SELECT times_found FROM reconciliation_issue"
                        + " WHERE discrepancy = 'RAIL_MOVEMENT_WITHOUT_SUBMISSION'")
                .query(Long.class)
                .single())
        .isEqualTo(2L);
    assertThat(paid.state().name()).isEqualTo("POSTED");
  }

  @Test
  void aRunReconcilesAtMostMaxWindowsPerRunAndTheNextGoesOnWhereItStopped() {
    Duration grace = Duration.ofHours(6);
    catchUp(2, grace, at(thisHour.minus(HOUR.multipliedBy(3)))).run("t");
    CatchUp bounded = catchUp(2, grace, at(thisHour.plus(HOUR)));

    assertThat(bounded.run("t"))
        .extracting(CatchUp.Done::window)
        .containsExactly(hour(-3), hour(-2));
    assertThat(events.named("reconciliation.catch_up_behind"))
        .singleElement()
        .satisfies(e -> assertThat(e.get("windowsLeft")).isEqualTo(2L));
    assertThat(bounded.run("t"))
        .extracting(CatchUp.Done::window)
        .containsExactly(hour(-1), hour(0));
  }

  @Test
  void anEntryThatReachesItsWindowsStatementLateIsReconciledByTheReread() {
    // The rail's books (and so its statement) show a movement 3 s after it was booked.
    world.faults(Map.of(), Duration.ofSeconds(3));
    catchUp(24, Duration.ofHours(6), at(thisHour)).run("t");
    Payout bypassed = world.pending();
    world.railPost(bypassed.clientReference(), bypassed.amountMinor(), bypassed.beneficiaryRef());
    CatchUp catchUp = catchUp(24, Duration.ofSeconds(1), at(thisHour.plus(HOUR)));

    // The window's first pass (and the re-read of the hour before) see nothing of it yet.
    List<CatchUp.Done> first = catchUp.run("t");
    assertThat(first)
        .filteredOn(d -> d.pass() == WindowLedger.Pass.FIRST)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.window()).isEqualTo(hour(0));
              assertThat(d.report().count(Discrepancy.RAIL_MOVEMENT_WITHOUT_SUBMISSION)).isZero();
            });
    assertThat(issues()).isEmpty();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> world.statementXml(hour(0)).contains(bypassed.clientReference()));

    List<CatchUp.Done> reread = catchUp.run("t");

    assertThat(reread)
        .filteredOn(d -> d.window().equals(hour(0)))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.pass()).isEqualTo(WindowLedger.Pass.REREAD);
              assertThat(d.report().reads().entriesNew()).isEqualTo(1);
              assertThat(d.report().count(Discrepancy.RAIL_MOVEMENT_WITHOUT_SUBMISSION))
                  .isEqualTo(1);
            });
    assertThat(issues()).containsExactly(Map.entry("RAIL_MOVEMENT_WITHOUT_SUBMISSION", 1L));
    assertThat(catchUp.run("t")).isEmpty();
  }

  private CatchUp catchUp(int maxWindows, Duration grace, Clock clock) {
    return new CatchUp(
        world.reconciler(world.settings()),
        new WindowLedger(world.paydb),
        new CatchUpSettings(HOUR, maxWindows, grace),
        clock);
  }

  private static Clock at(Instant windowEnd) {
    return Clock.fixed(windowEnd.plusSeconds(1), ZoneOffset.UTC);
  }

  private ReconciliationWindow hour(int offset) {
    Instant from = thisHour.plus(HOUR.multipliedBy(offset));
    return new ReconciliationWindow(from, from.plus(HOUR));
  }

  /** The issues of the classes this test's statement entries can raise. */
  private List<Map.Entry<String, Long>> issues() {
    return world
        .sql
        .sql(
            "SELECT discrepancy, count(*) FROM reconciliation_issue"
                + " WHERE discrepancy IN ('RAIL_MOVEMENT_WITHOUT_SUBMISSION', 'DUPLICATE_SUBMISSION')"
                + " GROUP BY discrepancy ORDER BY discrepancy")
        .query((rs, i) -> Map.entry(rs.getString(1), rs.getLong(2)))
        .list();
  }
}
