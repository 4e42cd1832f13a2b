package dev.fencepost.bench;

import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.reconciliation.Detection;
import dev.fencepost.reconciliation.Detector;
import dev.fencepost.reconciliation.Discrepancy;
import dev.fencepost.reconciliation.PaydbReads;
import dev.fencepost.reconciliation.ReconciliationSettings;
import dev.fencepost.reconciliation.ReconciliationWindow;
import dev.fencepost.reconciliation.StatementEntry;
import dev.fencepost.reconciliation.StatementEntryStore;
import dev.fencepost.reconciliation.StatementPage;
import dev.fencepost.reconciliation.StatementScan;
import dev.fencepost.reconciliation.StatementSource;
import dev.fencepost.reconciliation.Submission;
import dev.fencepost.reconciliation.SubmissionSource;
import dev.fencepost.reconciliation.WindowSubmissionStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The reconciliation benchmark (ADR 0178, 0187): {@code payouts} payouts seeded in a fresh paydb
 * with their ledger postings, the proxy's submission of each, and a window's statement with an
 * entry for each, with a sprinkle of every class the three show: duplicates, movements naming no
 * payout, movements whose amount is not the payout's, movements for payouts still RAIL_SUBMITTED
 * (which are also money moved without a posting), and submissions whose content is not their
 * payout's. It runs the window's whole comparison as the job does: the chunk-oriented statement
 * pass ({@link StatementScan}: reader in pages, processor, writer per chunk), then the comparison
 * of submissions, postings and the ledger ({@link Detector#detect}, a page at a time). It reports
 * the wall time of each and the heap's peak during both, and the counts found against the counts
 * planted. The statement and the submissions are generated page by page ({@link
 * GeneratedStatement}, {@link GeneratedSubmissions}) and handed over as the proxy's read API and
 * the rail's statement would hand them, so the harness itself holds one page; what is not measured
 * is the HTTP and JSON of reading them from the proxy and the rail.
 *
 * <p>{@code bench/run-reconciliation-bench.sh} runs 1,000,000 payouts in a 512 MB heap; the test
 * command runs a smoke size ({@code ReconciliationBenchSmokeTest}) that asserts every planted
 * discrepancy is found and none is invented, never a timing.
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
      Duration compareTime,
      long submissions,
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
    double scan = o.scanTime().toMillis() / 1000.0;
    return String.format(
        "reconciliation bench: %,d payouts, %,d statement entries, %,d submissions, chunk %d;"
            + " seed %d s; statement scan %.1f s (%,.0f entries/s); comparison %.1f s;"
            + " total %.1f s; peak heap %,d MiB (max %,d MiB); planted %s; found %s",
        o.settings().payouts(),
        o.entries(),
        o.submissions(),
        o.settings().chunk(),
        o.seedTime().toSeconds(),
        scan,
        o.entries() / Math.max(0.001, scan),
        o.compareTime().toMillis() / 1000.0,
        (o.scanTime().toMillis() + o.compareTime().toMillis()) / 1000.0,
        o.peakHeapBytes() / (1024 * 1024),
        Runtime.getRuntime().maxMemory() / (1024 * 1024),
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
      seed(ds, settings, window);
      Duration seedTime = Duration.ofNanos(System.nanoTime() - seedStart);
      log.accept("seeded " + settings.payouts() + " payouts in " + seedTime.toSeconds() + " s");
      GeneratedStatement statement = new GeneratedStatement(settings, window);
      GeneratedSubmissions submissions = new GeneratedSubmissions(settings, window);
      StatementEntryStore entries = new StatementEntryStore(ds);
      PaydbReads reads = new PaydbReads(ds, settings.chunk());
      ReconciliationSettings reconciliation =
          ReconciliationSettings.defaults("reconciliation-bench");
      StatementScan scan = new StatementScan(statement, entries, reads, reconciliation);
      Detector detector =
          new Detector(
              reads,
              new PaymentResource(ds, new SimpleMeterRegistry()),
              submissions,
              statement,
              entries,
              new WindowSubmissionStore(ds),
              reconciliation);
      System.gc();
      resetPeaks();
      long scanStart = System.nanoTime();
      scan.scan(window, "bench", settings.chunk());
      Duration scanTime = Duration.ofNanos(System.nanoTime() - scanStart);
      log.accept("statement scanned in " + scanTime.toSeconds() + " s");
      long compareStart = System.nanoTime();
      Detection detection = detector.detect(window, reads.now(), List.of(), "bench");
      Duration compareTime = Duration.ofNanos(System.nanoTime() - compareStart);
      long peak = peakHeap();
      Map<Discrepancy, Long> found = new EnumMap<>(Discrepancy.class);
      detection
          .counts()
          .forEach(
              (d, n) -> {
                if (n > 0) {
                  found.put(d, n);
                }
              });
      return new Outcome(
          settings,
          statement.size(),
          seedTime,
          scanTime,
          compareTime,
          detection.reads().submissionsRead(),
          peak,
          planted(settings),
          found);
    }
  }

  /**
   * The counts planted, {@code plantedPerClass} of every class: a payout left RAIL_SUBMITTED whose
   * movement is on the statement is two findings, the movement for an unsettled payout and the
   * money moved without a posting.
   */
  static Map<Discrepancy, Long> planted(Settings s) {
    Map<Discrepancy, Long> planted = new EnumMap<>(Discrepancy.class);
    for (Discrepancy d :
        List.of(
            Discrepancy.DUPLICATE_SUBMISSION,
            Discrepancy.MOVEMENT_WITHOUT_PAYOUT,
            Discrepancy.MOVEMENT_CONTENT_MISMATCH,
            Discrepancy.MOVEMENT_FOR_UNSETTLED_PAYOUT,
            Discrepancy.SUBMISSION_WITHOUT_POSTING,
            Discrepancy.SUBMISSION_CONTENT_MISMATCH)) {
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
   * payouts at offsets 1 (movement's amount), 2 (RAIL_SUBMITTED), 3 (duplicated) and 4
   * (submission's beneficiary).
   */
  static long stride(Settings s) {
    return s.payouts() / s.plantedPerClass();
  }

  private static void seed(DataSource ds, Settings s, ReconciliationWindow window) {
    JdbcClient sql = JdbcClient.create(ds);
    sql.sql(
            "INSERT INTO account (id, kind, currency) SELECT 'bench-acc-' || g, 'CUSTOMER', 'EUR'"
                + " FROM generate_series(0, 99) g")
        .update();
    sql.sql(
            "INSERT INTO account (id, kind, currency) SELECT 'bench-stuck-' || g, 'CUSTOMER',"
                + " 'EUR' FROM generate_series(0, :n) g")
        .param("n", s.plantedPerClass() - 1)
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
                     CASE WHEN g % :stride = 2 AND g / :stride < :planted
                          THEN 'bench-stuck-' || (g / :stride) ELSE 'bench-acc-' || (g % 100) END,
                     1000 + g % 1000, 'EUR', 'ben-' || (g % 100),
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
    // Each POSTED payout's posting, written inside the window: a group and its two legs, the
    // customer's debit and the clearing account's credit (ADR 0033); then the accounts' cached
    // balances, so that the ledger balances and the comparison's ledger check reads all of it.
    // The balancing triggers check each group at commit, a query per leg; the harness's rows
    // balance by construction, so a seeding transaction runs them off (replica mode, superuser).
    TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));
    for (long from = 0; from < s.payouts(); from += 100_000) {
      long first = from;
      tx.executeWithoutResult(status -> seedPostings(sql, s, window, first, stride));
    }
    sql.sql(
            """
            UPDATE account a SET balance_minor = coalesce(
              (SELECT sum(e.signed_amount) FROM ledger_entry e WHERE e.account_id = a.id), 0)""")
        .update();
    sql.sql("ANALYZE").update();
  }

  private static void seedPostings(
      JdbcClient sql, Settings s, ReconciliationWindow window, long from, long stride) {
    sql.sql("SET LOCAL session_replication_role = replica").update();
    {
      long to = Math.min(s.payouts(), from + 100_000) - 1;
      String posted =
          """
          FROM generate_series(:from, :to) g
          WHERE NOT (g % :stride = 2 AND g / :stride < :planted)""";
      sql.sql(
              """
              INSERT INTO ledger_group (id, kind, payout_id, fencing_token, actor, created_at)
              SELECT ('00000000-0000-4000-9000-' || lpad(to_hex(g), 12, '0'))::uuid,
                     'PAYOUT_POSTING',
                     ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 1, 'bench',
                     :windowFrom::timestamptz + (g * interval '3 seconds' / :payouts)
              """
                  + posted)
          .param("from", from)
          .param("to", to)
          .param("stride", stride)
          .param("planted", s.plantedPerClass())
          .param("payouts", s.payouts() / 1000.0)
          .param("windowFrom", window.from().toString())
          .update();
      sql.sql(
              """
              INSERT INTO ledger_entry (group_id, account_id, counterparty_account_id,
                                        signed_amount, payout_id, fencing_token)
              SELECT ('00000000-0000-4000-9000-' || lpad(to_hex(g), 12, '0'))::uuid,
                     CASE WHEN leg = 0 THEN 'bench-acc-' || (g % 100) ELSE 'payout-clearing' END,
                     CASE WHEN leg = 0 THEN 'payout-clearing' ELSE 'bench-acc-' || (g % 100) END,
                     CASE WHEN leg = 0 THEN -(1000 + g % 1000) ELSE 1000 + g % 1000 END,
                     ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 1
              FROM generate_series(:from, :to) g CROSS JOIN (VALUES (0), (1)) legs(leg)
              WHERE NOT (g % :stride = 2 AND g / :stride < :planted)""")
          .param("from", from)
          .param("to", to)
          .param("stride", stride)
          .param("planted", s.plantedPerClass())
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

    private boolean planted(long n, long offset) {
      return ReconciliationBench.planted(settings, n, offset);
    }

    @Override
    public String name() {
      return "generated";
    }
  }

  /** Whether payout {@code n} carries the plant at {@code offset}: one of the first K strides. */
  static boolean planted(Settings s, long n, long offset) {
    long stride = stride(s);
    return n % stride == offset && n / stride < s.plantedPerClass();
  }

  /**
   * Payout {@code i}'s account: one of 100, except that each payout left RAIL_SUBMITTED has an
   * account of its own (one payout in flight per account, A-15, so that the plant is only what it
   * is meant to be).
   */
  static String account(Settings s, long i) {
    return planted(s, i, 2) ? "bench-stuck-" + i / stride(s) : "bench-acc-" + i % 100;
  }

  /**
   * The proxy's submissions of the window, generated page by page in id order: submission i + 1 is
   * payout i's, ACKED, recorded inside the window, with the payout's content except that every
   * stride-th payout at offset 4 was submitted with another beneficiary. A lookup by payout id
   * answers the same record.
   */
  static final class GeneratedSubmissions implements SubmissionSource {

    private final Settings settings;
    private final ReconciliationWindow window;

    GeneratedSubmissions(Settings settings, ReconciliationWindow window) {
      this.settings = settings;
      this.window = window;
    }

    @Override
    public void forEachPage(ReconciliationWindow asked, Consumer<List<Submission>> each) {
      List<Submission> page = new ArrayList<>(settings.chunk());
      for (long n = 0; n < settings.payouts(); n++) {
        page.add(submission(n));
        if (page.size() == settings.chunk()) {
          each.accept(page);
          page = new ArrayList<>(settings.chunk());
        }
      }
      each.accept(page);
    }

    @Override
    public Optional<Submission> submission(String payoutId) {
      UUID id = UUID.fromString(payoutId);
      long n = id.getLeastSignificantBits() & 0xFFFFFFFFFFFFL;
      if (!payoutId(n).equals(id) || n >= settings.payouts()) {
        return Optional.empty();
      }
      return Optional.of(submission(n));
    }

    private Submission submission(long n) {
      long span = Duration.between(window.from(), window.to()).toMillis() - 1;
      return new Submission(
          n + 1,
          payoutId(n).toString(),
          account(settings, n),
          1,
          clientReference(payoutId(n)),
          "ACKED",
          String.format("BENCH-%012d", n),
          window.from().plusMillis(n * span / settings.payouts()),
          amount(n),
          "EUR",
          planted(settings, n, 4) ? "ben-elsewhere" : "ben-" + (n % 100));
    }
  }

  static String clientReference(UUID id) {
    return "fp-" + id.toString().replace("-", "");
  }
}
