package dev.fencepost.bench;

import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.reconciliation.Discrepancy;
import dev.fencepost.reconciliation.PaydbReads;
import dev.fencepost.reconciliation.ReconciliationSettings;
import dev.fencepost.reconciliation.ReconciliationWindow;
import dev.fencepost.reconciliation.StatementEntry;
import dev.fencepost.reconciliation.StatementEntryStore;
import dev.fencepost.reconciliation.StatementPage;
import dev.fencepost.reconciliation.StatementScan;
import dev.fencepost.reconciliation.StatementSource;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The reconciliation benchmark (ADR 0178): {@code payouts} payouts seeded in a fresh paydb, a
 * window's statement with an entry for each and a sprinkle of every class the statements show
 * (duplicates, movements naming no payout, movements whose amount is not the payout's, movements
 * for payouts still RAIL_SUBMITTED), scanned by the reconciliation job's chunk-oriented statement
 * pass ({@link StatementScan}: reader in pages, processor, writer per chunk) exactly as the job
 * runs it. It reports the scan's wall time and the heap's peak during it, and the counts found
 * against the counts planted. The statement is generated page by page ({@link GeneratedStatement}),
 * so the harness itself holds one page; the proxy's submissions are not part of it.
 *
 * <p>{@code bench/run-reconciliation-bench.sh} runs 1,000,000 payouts; the test command runs a
 * smoke size ({@code ReconciliationBenchSmokeTest}) that asserts every planted discrepancy is found
 * and none is invented, never a timing.
 */
public final class ReconciliationBench {

  /**
   * @param payouts payouts seeded, each with one statement entry
   * @param chunk entries per chunk (and per statement page)
   * @param plantedPerClass discrepancies planted of each class
   */
  public record Settings(int payouts, int chunk, int plantedPerClass) {
    public Settings {
      if (payouts < 10 || plantedPerClass < 1 || plantedPerClass * 10 > payouts) {
        throw new IllegalArgumentException(
            "need payouts >= 10 and 10 x planted per class <= payouts");
      }
    }
  }

  /** What one run measured and found. */
  public record Outcome(
      Settings settings,
      long entries,
      Duration seedTime,
      Duration scanTime,
      long peakHeapBytes,
      Map<Discrepancy, Long> planted,
      Map<Discrepancy, Long> found) {}

  private ReconciliationBench() {}

  public static void main(String[] args) {
    int payouts = Integer.getInteger("bench.payouts", 1_000_000);
    Settings settings =
        new Settings(
            payouts,
            Integer.getInteger("bench.chunk", 500),
            Integer.getInteger("bench.planted", Math.max(1, payouts / 10_000)));
    String commit = Provenance.commit();
    String loadBefore = Provenance.loadAverage();
    Outcome outcome = run(settings, System.out::println);
    System.out.println(header(commit, loadBefore, Provenance.loadAverage()));
    System.out.println(report(outcome));
    if (!outcome.found().equals(outcome.planted())) {
      System.exit(1);
    }
  }

  /**
   * The line every benchmark report starts with (ADR 0183): the commit measured and the machine's
   * load average before and after the run.
   */
  public static String header(String commit, String loadBefore, String loadAfter) {
    return "reconciliation bench at commit "
        + commit
        + "; load average (1, 5, 15 min; /proc/loadavg) before the run "
        + loadBefore
        + ", after "
        + loadAfter;
  }

  public static String report(Outcome o) {
    return String.format(
        "reconciliation bench: %,d payouts, %,d statement entries, chunk %d; seed %d s;"
            + " scan %.1f s (%,.0f entries/s); peak heap %,d MiB; planted %s; found %s",
        o.settings().payouts(),
        o.entries(),
        o.settings().chunk(),
        o.seedTime().toSeconds(),
        o.scanTime().toMillis() / 1000.0,
        o.entries() / Math.max(0.001, o.scanTime().toMillis() / 1000.0),
        o.peakHeapBytes() / (1024 * 1024),
        o.planted(),
        o.found());
  }

  public static Outcome run(Settings settings, Consumer<String> log) {
    try (PostgresDatabase paydb = EmbeddedPostgresServer.shared().createDatabase("recon_bench")) {
      paydb.applyChangelog("db/changelog/paydb/db.changelog-master.yaml");
      DataSource ds = paydb.dataSource();
      Instant windowFrom = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(2));
      ReconciliationWindow window =
          new ReconciliationWindow(windowFrom, windowFrom.plus(Duration.ofHours(1)));
      long seedStart = System.nanoTime();
      seed(ds, settings);
      Duration seedTime = Duration.ofNanos(System.nanoTime() - seedStart);
      log.accept("seeded " + settings.payouts() + " payouts in " + seedTime.toSeconds() + " s");
      GeneratedStatement statement = new GeneratedStatement(settings, window);
      StatementEntryStore entries = new StatementEntryStore(ds);
      StatementScan scan =
          new StatementScan(
              statement,
              entries,
              new PaydbReads(ds),
              ReconciliationSettings.defaults("reconciliation-bench"));
      System.gc();
      resetPeaks();
      long scanStart = System.nanoTime();
      scan.scan(window, "bench", settings.chunk());
      Duration scanTime = Duration.ofNanos(System.nanoTime() - scanStart);
      long peak = peakHeap();
      Map<Discrepancy, Long> found = new EnumMap<>(Discrepancy.class);
      found.putAll(entries.scanCounts("bench"));
      return new Outcome(
          settings, statement.size(), seedTime, scanTime, peak, planted(settings), found);
    }
  }

  /** The counts planted: one class each, {@code plantedPerClass} of every one. */
  static Map<Discrepancy, Long> planted(Settings s) {
    Map<Discrepancy, Long> planted = new EnumMap<>(Discrepancy.class);
    for (Discrepancy d :
        List.of(
            Discrepancy.DUPLICATE_SUBMISSION,
            Discrepancy.MOVEMENT_WITHOUT_PAYOUT,
            Discrepancy.MOVEMENT_CONTENT_MISMATCH,
            Discrepancy.MOVEMENT_FOR_UNSETTLED_PAYOUT)) {
      planted.put(d, (long) s.plantedPerClass());
    }
    return planted;
  }

  /** Payout {@code i}'s id: a fixed function of i, computed alike in SQL and here. */
  static UUID payoutId(long i) {
    return UUID.fromString(String.format("00000000-0000-4000-8000-%012x", i));
  }

  static long amount(long i) {
    return 1000 + i % 1000;
  }

  /**
   * Which payouts carry which plant: in each of the first {@code plantedPerClass} strides, the
   * payouts at offsets 1 (amount), 2 (RAIL_SUBMITTED) and 3 (duplicated).
   */
  static long stride(Settings s) {
    return s.payouts() / s.plantedPerClass();
  }

  private static void seed(DataSource ds, Settings s) {
    JdbcClient sql = JdbcClient.create(ds);
    sql.sql(
            "INSERT INTO account (id, kind, currency) SELECT 'bench-acc-' || g, 'CUSTOMER', 'EUR'"
                + " FROM generate_series(0, 99) g")
        .update();
    long stride = stride(s);
    // Every payout POSTED, except every stride-th at offset 2, left RAIL_SUBMITTED (the money
    // left, paydb has not caught up).
    for (long from = 0; from < s.payouts(); from += 100_000) {
      long to = Math.min(s.payouts(), from + 100_000) - 1;
      sql.sql(
              """
              INSERT INTO payout (id, account_id, amount_minor, currency, beneficiary_ref, state,
                                  submitted_at, finished_at)
              SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid,
                     'bench-acc-' || (g % 100), 1000 + g % 1000, 'EUR', 'ben-' || (g % 100),
                     CASE WHEN g % :stride = 2 AND g / :stride < :planted
                          THEN 'RAIL_SUBMITTED' ELSE 'POSTED' END,
                     now() - interval '3 hours',
                     CASE WHEN g % :stride = 2 AND g / :stride < :planted THEN NULL ELSE now() END
                FROM generate_series(:from, :to) g""")
          .param("stride", stride)
          .param("planted", s.plantedPerClass())
          .param("from", from)
          .param("to", to)
          .update();
    }
  }

  private static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  private static long peakHeap() {
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    return peak;
  }

  /**
   * The window's statement, generated page by page: entry i is payout i's, booked inside the window
   * in order, then the plants. Every stride-th payout at offset 1 is booked with one more minor
   * unit than its amount; at offset 3 it has a second entry after the others (a duplicate); and
   * {@code plantedPerClass} entries name references of no payout.
   */
  static final class GeneratedStatement implements StatementSource {

    private final Settings settings;
    private final ReconciliationWindow window;
    private final long stride;

    GeneratedStatement(Settings settings, ReconciliationWindow window) {
      this.settings = settings;
      this.window = window;
      this.stride = stride(settings);
    }

    long size() {
      return settings.payouts() + 2L * settings.plantedPerClass();
    }

    @Override
    public StatementPage read(ReconciliationWindow asked, int page) {
      long first = (long) (page - 1) * settings.chunk();
      long last = Math.min(size(), first + settings.chunk());
      List<StatementEntry> entries = new ArrayList<>();
      for (long n = first; n < last; n++) {
        entries.add(entry(n));
      }
      return new StatementPage(entries, last >= size());
    }

    private StatementEntry entry(long n) {
      long span = Duration.between(window.from(), window.to()).toMillis() - 1;
      Instant at = window.from().plusMillis(n * span / size());
      String ref = String.format("BENCH-%012d", n);
      if (n < settings.payouts()) {
        long amount = amount(n) + (planted(n, 1) ? 1 : 0);
        return new StatementEntry(
            ref, clientReference(payoutId(n)), amount, "EUR", "ben-" + (n % 100), at);
      }
      long k = n - settings.payouts();
      if (k < settings.plantedPerClass()) {
        long dup = k * stride + 3;
        return new StatementEntry(
            ref, clientReference(payoutId(dup)), amount(dup), "EUR", "ben-" + (dup % 100), at);
      }
      return new StatementEntry(
          ref, String.format("fp-foreign%025d", k), 500, "EUR", "ben-foreign", at);
    }

    /** Whether payout {@code n} carries the plant at {@code offset}: one of the first K strides. */
    private boolean planted(long n, long offset) {
      return n % stride == offset && n / stride < settings.plantedPerClass();
    }

    @Override
    public String name() {
      return "generated";
    }
  }

  static String clientReference(UUID id) {
    return "fp-" + id.toString().replace("-", "");
  }
}
