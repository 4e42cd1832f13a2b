package dev.fencepost.payoutjob;

import dev.fencepost.payment.PayoutState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * paydb's backlog, ambiguity and reconciliation record as gauges (ADR 0175). Every worker runs the
 * same few indexed queries once per {@code refresh} on one daemon thread, never at scrape, so a
 * scrape costs nothing and a slow paydb cannot stall it; the gauges show the last snapshot (NaN
 * before the first one, and after a failed refresh, so an alert on them does not see a stale
 * healthy value). The reconciliation job runs as an hourly CronJob that nobody scrapes: its record
 * in paydb (ADR 0072) is what these gauges publish for it. With several workers every one publishes
 * the same values; the rules take the max.
 *
 * <p>Ages are measured on the database's clock, the one that stamped the rows. Tags: {@code state}
 * (the closed {@link PayoutState} enum), and {@code discrepancy} and {@code severity} as the
 * reconciler wrote them (its closed enums), refused unless upper-case words and capped at {@value
 * #MAX_CLASSES} series.
 *
 * <ul>
 *   <li>{@code fencepost.payout.pending.oldest.age.seconds}: the oldest actionable PENDING payout
 *       (its account has nothing in flight, as the job's candidate query; A-15), 0 when none
 *   <li>{@code fencepost.payouts{state}}: payouts per live state, PENDING to RAIL_AMBIGUOUS. Not
 *       the terminal states: counting them reads every payout ever made, every refresh, on every
 *       worker, a cost that grows with the table for numbers nobody alerts on (ADR 0205). How many
 *       end, and how, is {@code fencepost.payout.transitions{to}}.
 *   <li>{@code fencepost.payout.ambiguous.past_sla}: RAIL_AMBIGUOUS payouts older than {@code
 *       ambiguousSla}
 *   <li>{@code fencepost.reconciliation.last.success.age.seconds}: since the last COMPLETED run
 *       finished, +Inf when none ever did
 *   <li>{@code fencepost.reconciliation.last.run.findings{discrepancy,severity}}: the counts of the
 *       last COMPLETED run
 * </ul>
 */
public final class PaydbGauges implements AutoCloseable {

  static final int MAX_CLASSES = 32;

  private static final Logger log = LoggerFactory.getLogger(PaydbGauges.class);
  private static final Pattern CLASS_NAME = Pattern.compile("[A-Z][A-Z_]{0,63}");

  private static final String IN_FLIGHT =
      "('CLAIMED', 'RAIL_SUBMITTED', 'RAIL_ACKED', 'RAIL_AMBIGUOUS')";

  /** The states {@code fencepost.payouts} counts: every state a payout can still leave. */
  static final List<PayoutState> LIVE =
      Arrays.stream(PayoutState.values()).filter(s -> !s.isTerminal()).toList();

  /**
   * Payouts per live state. The {@code IN} list lets index {@code payout_state_updated} hand over
   * only the live payouts' entries, so the count grows with the backlog, not with history.
   */
  static final String PER_LIVE_STATE =
      "SELECT state, count(*) AS n FROM payout WHERE state IN "
          + LIVE.stream().map(s -> "'" + s.name() + "'").collect(Collectors.joining(", ", "(", ")"))
          + " GROUP BY state";

  /** One refresh's values. */
  record Snapshot(
      double pendingOldestAgeSeconds,
      Map<PayoutState, Long> perState,
      long ambiguousPastSla,
      double lastReconciliationSuccessAgeSeconds,
      List<ClassCount> lastRunFindings) {}

  /** One class's count in the last completed reconciliation run. */
  record ClassCount(String discrepancy, String severity, long count) {}

  private final JdbcClient jdbc;
  private final Duration ambiguousSla;
  private final AtomicReference<Snapshot> last = new AtomicReference<>();
  private final MultiGauge lastRunFindings;
  private ScheduledExecutorService schedule;

  public PaydbGauges(DataSource paydb, Duration ambiguousSla, MeterRegistry meters) {
    this.jdbc = JdbcClient.create(paydb);
    this.ambiguousSla = ambiguousSla;
    Gauge.builder(
            "fencepost.payout.pending.oldest.age.seconds",
            this,
            g -> g.value(Snapshot::pendingOldestAgeSeconds))
        .description("age of the oldest PENDING payout a worker may take now, 0 when none")
        .baseUnit("seconds")
        .register(meters);
    for (PayoutState state : LIVE) {
      Gauge.builder(
              "fencepost.payouts", this, g -> g.value(s -> s.perState().getOrDefault(state, 0L)))
          .description("payouts in this live (not terminal) state")
          .tag("state", state.name())
          .register(meters);
    }
    Gauge.builder(
            "fencepost.payout.ambiguous.past_sla", this, g -> g.value(Snapshot::ambiguousPastSla))
        .description("RAIL_AMBIGUOUS payouts older than their resolution SLA (A-10)")
        .register(meters);
    Gauge.builder(
            "fencepost.reconciliation.last.success.age.seconds",
            this,
            g -> g.value(Snapshot::lastReconciliationSuccessAgeSeconds))
        .description("since the last completed reconciliation run finished; +Inf when none did")
        .baseUnit("seconds")
        .register(meters);
    lastRunFindings =
        MultiGauge.builder("fencepost.reconciliation.last.run.findings")
            .description("findings per class in the last completed reconciliation run")
            .register(meters);
  }

  /** Refreshes now and then every {@code refresh} on a daemon thread until {@link #close}. */
  public synchronized PaydbGauges start(Duration refresh) {
    if (schedule == null) {
      schedule =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "paydb-gauges");
                t.setDaemon(true);
                return t;
              });
      schedule.scheduleWithFixedDelay(this::refresh, 0, refresh.toMillis(), TimeUnit.MILLISECONDS);
    }
    return this;
  }

  /** Reads paydb once; a failure leaves every gauge NaN until the next refresh succeeds. */
  public void refresh() {
    try {
      Snapshot snapshot = read();
      last.set(snapshot);
      List<MultiGauge.Row<?>> rows = new ArrayList<>();
      for (ClassCount c : snapshot.lastRunFindings()) {
        rows.add(
            MultiGauge.Row.of(
                Tags.of("discrepancy", c.discrepancy(), "severity", c.severity()), c.count()));
      }
      lastRunFindings.register(rows, true);
    } catch (RuntimeException e) {
      last.set(null);
      log.atWarn()
          .addKeyValue("event", "payout.paydb_gauges.failed")
          .addKeyValue("error", String.valueOf(e.getMessage()))
          .log("paydb gauges could not be read; they show NaN until the next refresh");
    }
  }

  Snapshot snapshot() {
    return last.get();
  }

  private double value(java.util.function.ToDoubleFunction<Snapshot> of) {
    Snapshot s = last.get();
    return s == null ? Double.NaN : of.applyAsDouble(s);
  }

  private Snapshot read() {
    double pendingAge =
        jdbc.sql(
                """
                SELECT coalesce(extract(epoch FROM clock_timestamp() - min(p.created_at)), 0)
                  FROM payout p
                 WHERE p.state = 'PENDING'
                   AND NOT EXISTS (SELECT 1 FROM payout q
                                    WHERE q.account_id = p.account_id AND q.state IN %s)"""
                    .formatted(IN_FLIGHT))
            .query(Double.class)
            .single();
    Map<PayoutState, Long> perState = new EnumMap<>(PayoutState.class);
    jdbc.sql(PER_LIVE_STATE)
        .query(
            rs -> {
              perState.put(PayoutState.valueOf(rs.getString("state")), rs.getLong("n"));
            });
    long pastSla =
        jdbc.sql(
                "SELECT count(*) FROM payout WHERE state = 'RAIL_AMBIGUOUS'"
                    + " AND coalesce(submitted_at, updated_at)"
                    + " < clock_timestamp() - :sla * interval '1 second'")
            .param("sla", ambiguousSla.toSeconds())
            .query(Long.class)
            .single();
    double lastSuccessAge =
        jdbc.sql(
                "SELECT extract(epoch FROM clock_timestamp() - max(finished_at))"
                    + " FROM reconciliation_run WHERE status = 'COMPLETED'")
            .query(Double.class)
            .optional()
            .orElse(Double.POSITIVE_INFINITY);
    List<ClassCount> findings =
        jdbc
            .sql(
                """
                SELECT c.discrepancy, c.severity, c.finding_count
                  FROM reconciliation_class_count c
                 WHERE c.run_id = (SELECT r.id FROM reconciliation_run r
                                    WHERE r.status = 'COMPLETED'
                                    ORDER BY r.finished_at DESC, r.id LIMIT 1)
                 ORDER BY c.discrepancy
                 LIMIT %d"""
                    .formatted(MAX_CLASSES))
            .query(
                (rs, i) ->
                    new ClassCount(
                        rs.getString("discrepancy"),
                        rs.getString("severity"),
                        rs.getLong("finding_count")))
            .list()
            .stream()
            .filter(
                c ->
                    CLASS_NAME.matcher(c.discrepancy()).matches()
                        && CLASS_NAME.matcher(c.severity()).matches())
            .toList();
    return new Snapshot(pendingAge, perState, pastSla, lastSuccessAge, findings);
  }

  @Override
  public synchronized void close() {
    if (schedule != null) {
      schedule.shutdownNow();
      schedule = null;
    }
  }
}
