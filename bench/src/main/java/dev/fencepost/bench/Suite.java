package dev.fencepost.bench;

import dev.fencepost.bench.LoadGenerator.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * Runs every (scenario, target) pair for a number of rounds, interleaved: each round visits every
 * scenario and, within it, every target in a rotated order, so slow drifts of a shared machine
 * spread over all targets. Results of all rounds are merged per (scenario, target): a cell.
 *
 * <p>Every measured run warms up first with its own clients (nothing recorded), then measures for
 * at least the plan's run length; a run whose cell is short of the samples a p99 needs goes on up
 * to the plan's maximum (ADR 0183).
 */
public final class Suite {

  /** One measured operation at a client count. */
  public record Scenario(Op op, int clients) {
    public String key() {
      return op.name() + "@" + clients;
    }
  }

  /**
   * How long each cell is measured: {@code rounds} runs, each {@code warmUp} (not recorded) then at
   * least {@code run}, extended up to {@code maxRun} while the cell is short of its share of {@code
   * samplesPerCell}.
   */
  public record Plan(
      int rounds, Duration warmUp, Duration run, Duration maxRun, long samplesPerCell) {

    /** Seconds of measurement every cell gets at least. */
    public double minCellSeconds() {
      return rounds * run.toMillis() / 1000.0;
    }
  }

  /** Merged measurements of one (scenario, target). */
  public static final class Cell {
    public final Histogram latency = LoadGenerator.histogram();
    public long operations;
    public long errors;
    public double seconds;
    public int runs;
    public String firstError;
    public final Map<String, Long> cpuNanos = new LinkedHashMap<>();
    public long fsyncs;
    public boolean fsyncKnown = true;

    /** Hand-off scenarios only: every hand-off and the fairness figures; null otherwise. */
    public Handoffs.Tally handoffs;

    public double throughput() {
      return seconds <= 0 ? 0 : operations / seconds;
    }

    /** CPU ms per operation of one process role. */
    public double cpuMsPerOp(String role) {
      return operations == 0 ? 0 : cpuNanos.getOrDefault(role, 0L) / 1e6 / operations;
    }

    public double fsyncsPerOp() {
      return operations == 0 ? 0 : (double) fsyncs / operations;
    }
  }

  /** How long a waiting acquire of the hand-off scenario may wait before it counts as an error. */
  static final Duration HANDOFF_MAX_WAIT = Duration.ofSeconds(20);

  private final Meters meters;
  private final List<LockTarget> targets;
  private final Plan plan;
  private final Consumer<String> log;
  private final Map<String, Map<String, Cell>> cells = new LinkedHashMap<>();

  /** Run ids are unique in the JVM, so runs of several suites never share a key. */
  private static final AtomicLong RUN_COUNTER = new AtomicLong();

  public Suite(Meters meters, List<LockTarget> targets, Plan plan, Consumer<String> log) {
    this.meters = meters;
    this.targets = targets;
    this.plan = plan;
    this.log = log;
  }

  public Plan plan() {
    return plan;
  }

  public Map<String, Map<String, Cell>> cells() {
    return cells;
  }

  public Cell cell(Scenario s, String targetId) {
    Map<String, Cell> byTarget = cells.get(s.key());
    return byTarget == null ? null : byTarget.get(targetId);
  }

  /**
   * Runs every scenario on every target that supports it, {@code rounds} times interleaved, after
   * an initial warm-up of {@code initialWarmUp} per target (its JVM paths and servers), on top of
   * the warm-up every measured run has. A lock-server target (E3, P2) is first driven for {@code
   * serverWarmUp} with 8 clients doing acquire+release: its server is a JVM of its own whose
   * compiler otherwise keeps spending CPU inside the measured cells for minutes.
   */
  public void run(List<Scenario> scenarios, Duration initialWarmUp, Duration serverWarmUp) {
    if (!serverWarmUp.isZero()) {
      for (LockTarget t : targets) {
        if (t instanceof LockServerTarget) {
          log.accept(
              "warming up " + t.id() + "'s lock server for " + serverWarmUp.toSeconds() + " s");
          measure(new Scenario(Op.PAIR, 8), t, -1, serverWarmUp);
        }
      }
    }
    if (!initialWarmUp.isZero()) {
      for (LockTarget t : targets) {
        Op op = t.ops().contains(Op.FLOOR) ? Op.FLOOR : Op.PAIR;
        measure(new Scenario(op, 2), t, -1, initialWarmUp);
      }
    }
    for (int round = 0; round < plan.rounds(); round++) {
      for (Scenario s : scenarios) {
        List<LockTarget> order = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
          order.add(targets.get((i + round) % targets.size()));
        }
        for (LockTarget t : order) {
          if (t.ops().contains(s.op())) {
            measure(s, t, round, Duration.ZERO);
          }
        }
      }
    }
  }

  private Cell cellFor(Scenario s, LockTarget target) {
    return cells
        .computeIfAbsent(s.key(), k -> new LinkedHashMap<>())
        .computeIfAbsent(target.id(), k -> new Cell());
  }

  /** One run; {@code round} < 0 is the initial warm-up of {@code warmUp}, not kept. */
  private void measure(Scenario s, LockTarget target, int round, Duration warmUp) {
    boolean keep = round >= 0;
    String run = "r" + RUN_COUNTER.incrementAndGet();
    List<LockTarget.Client> clients = new ArrayList<>();
    AtomicReferenceArray<Object> held = new AtomicReferenceArray<>(Math.max(1, s.clients()));
    LockTarget.Client holder = null;
    Object holderHandle = null;
    String fixedKey = "bench:" + run + ":k";
    Handoffs handoffs = new Handoffs(Math.max(1, s.clients()));
    try {
      int n = s.clients();
      for (int i = 0; i < n; i++) {
        clients.add(target.client(i));
      }
      if (s.op() == Op.TRY_HELD || s.op() == Op.INSPECT) {
        holder = target.client(n);
        holderHandle = holder.acquire(fixedKey);
        if (holderHandle == null) {
          throw new IllegalStateException("holder could not take " + fixedKey);
        }
      }
      Timing timing;
      if (keep) {
        Cell sofar = cell(s, target.id());
        long before = sofar == null ? 0 : sofar.operations;
        long share = (plan.samplesPerCell() * (round + 1) + plan.rounds() - 1) / plan.rounds();
        timing =
            new Timing(
                plan.warmUp(),
                plan.run(),
                plan.maxRun(),
                recorded ->
                    before + (s.op() == Op.HANDOFF ? handoffs.samples() : recorded) >= share);
      } else {
        timing = Timing.fixed(warmUp);
      }
      AtomicReference<Map<String, Long>> cpuBefore = new AtomicReference<>(Map.of());
      long[] fsyncBefore = {-1};
      long[] window = new long[2];
      LoadGenerator.Result r =
          LoadGenerator.closedLoop(
              n,
              timing,
              w -> {
                if (s.op() == Op.RENEW) {
                  // Taken on the worker's own thread (JdbcLockRegistry locks are per thread).
                  held.set(w, clients.get(w).acquire(fixedKey + w));
                }
              },
              (w, i) -> {
                LockTarget.Client c = clients.get(w);
                String key = "bench:" + run + ":w" + w + ":" + (i % 16);
                long t0 = System.nanoTime();
                switch (s.op()) {
                  case FLOOR -> c.floor();
                  case ACQUIRE -> {
                    Object h = c.acquire(key);
                    long t1 = System.nanoTime();
                    if (h == null) {
                      throw new IllegalStateException("free key " + key + " not acquired");
                    }
                    c.release(key, h);
                    return t1 - t0;
                  }
                  case PAIR -> {
                    Object h = c.acquire(key);
                    if (h == null) {
                      throw new IllegalStateException("free key " + key + " not acquired");
                    }
                    c.release(key, h);
                  }
                  case TRY_HELD -> {
                    Object h = c.acquire(fixedKey);
                    if (h != null) {
                      throw new IllegalStateException("acquired a held key");
                    }
                  }
                  case RENEW -> {
                    if (held.get(w) == null) {
                      throw new IllegalStateException("the renew setup did not acquire");
                    }
                    held.set(w, c.renew(fixedKey + w, held.get(w)));
                  }
                  case INSPECT -> c.inspect(fixedKey);
                  case HANDOFF -> {
                    // Every grant after the first is a hand-off, to another client or back to
                    // this one; Handoffs times it from the previous holder's release.
                    Object h;
                    try {
                      h = c.acquireWaiting(fixedKey, HANDOFF_MAX_WAIT);
                    } catch (Exception e) {
                      handoffs.waitFailed(w, t0, System.nanoTime());
                      throw e;
                    }
                    long granted = System.nanoTime();
                    handoffs.granted(w, t0, granted);
                    handoffs.releasing(w, System.nanoTime());
                    c.release(fixedKey, h);
                    return -1;
                  }
                }
                return System.nanoTime() - t0;
              },
              new LoadGenerator.Window() {
                @Override
                public void opensAt(long nanos) {
                  handoffs.windowFrom(nanos);
                  window[0] = nanos;
                }

                @Override
                public void opened() {
                  cpuBefore.set(meters.cpuNanos());
                  fsyncBefore[0] = meters.fsyncs(target.store());
                }

                @Override
                public void closes(long nanos) {
                  handoffs.windowUntil(nanos);
                  window[1] = nanos;
                }
              });
      Map<String, Long> cpuAfter = meters.cpuNanos();
      long fsyncAfter = meters.fsyncs(target.store());
      Handoffs.Tally tally = s.op() == Op.HANDOFF ? handoffs.tally() : null;
      Histogram latency = tally == null ? r.latency() : tally.latency;
      long operations = tally == null ? r.operations() : tally.samples;
      // Hand-offs are counted by when their release fell in the window, so they are per the
      // window's length; other operations per the run's time until its last one finished.
      double seconds = tally == null ? r.seconds() : (window[1] - window[0]) / 1e9;
      if (keep) {
        Cell cell = cellFor(s, target);
        cell.latency.add(latency);
        cell.operations += operations;
        cell.errors += r.errors();
        cell.seconds += seconds;
        cell.runs++;
        if (cell.firstError == null) {
          cell.firstError = r.firstError();
        }
        if (tally != null) {
          if (cell.handoffs == null) {
            cell.handoffs = new Handoffs.Tally();
          }
          cell.handoffs.add(tally);
        }
        Map<String, Long> before = cpuBefore.get();
        cpuAfter.forEach(
            (role, v) -> cell.cpuNanos.merge(role, v - before.getOrDefault(role, 0L), Long::sum));
        if (fsyncBefore[0] < 0 || fsyncAfter < 0) {
          cell.fsyncKnown = false;
        } else {
          cell.fsyncs += fsyncAfter - fsyncBefore[0];
        }
      }
      log.accept(
          String.format(
              "%-10s %-4s %s n=%d ops=%d p50=%.3fms p99=%s %.0f/s %.1fs errors=%d%s%s",
              s.key(),
              target.id(),
              keep ? "" : "(warm-up)",
              n,
              operations,
              latency.getValueAtPercentile(50) / 1e6,
              Stats.quote(latency, 99),
              seconds <= 0 ? 0 : operations / seconds,
              seconds,
              r.errors(),
              tally == null
                  ? ""
                  : String.format(
                      " same-client=%d/%d warm-up=%d drain=%d overlaps=%d",
                      tally.sameClient,
                      tally.samples,
                      tally.warmUpHandoffs,
                      tally.drainHandoffs,
                      tally.overlaps),
              r.firstError() == null ? "" : " first error: " + r.firstError()));
    } catch (Exception e) {
      log.accept(s.key() + " " + target.id() + " FAILED: " + LoadGenerator.describe(e));
      if (keep) {
        Cell cell = cellFor(s, target);
        cell.errors++;
        if (cell.firstError == null) {
          cell.firstError = LoadGenerator.describe(e);
        }
      }
    } finally {
      for (int i = 0; i < held.length(); i++) {
        int w = i;
        if (held.get(w) != null) {
          quietly(() -> clients.get(w).release(fixedKey + w, held.get(w)));
        }
      }
      if (holder != null) {
        LockTarget.Client h = holder;
        Object hh = holderHandle;
        if (hh != null) {
          quietly(() -> h.release(fixedKey, hh));
        }
        quietly(h::close);
      }
      for (LockTarget.Client c : clients) {
        quietly(c::close);
      }
    }
  }

  private static void quietly(ThrowingRunnable r) {
    try {
      r.run();
    } catch (Exception ignored) {
      // clean-up after a measurement
    }
  }

  @FunctionalInterface
  interface ThrowingRunnable {
    void run() throws Exception;
  }
}
