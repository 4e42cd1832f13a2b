package dev.fencepost.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * Runs every (scenario, target) pair for a number of rounds, interleaved: each round visits every
 * scenario and, within it, every target in a rotated order, so slow drifts of a shared machine
 * spread over all targets. Results of all rounds are merged per (scenario, target).
 */
public final class Suite {

  /** One measured operation at a client count. */
  public record Scenario(Op op, int clients) {
    public String key() {
      return op.name() + "@" + clients;
    }
  }

  /** Merged measurements of one (scenario, target). */
  public static final class Cell {
    public final Histogram latency = LoadGenerator.histogram();
    public long operations;
    public long errors;
    public double seconds;
    public String firstError;
    public final Map<String, Long> cpuNanos = new LinkedHashMap<>();
    public long fsyncs;
    public boolean fsyncKnown = true;

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

  private final Environment env;
  private final List<LockTarget> targets;
  private final Duration duration;
  private final int rounds;
  private final Consumer<String> log;
  private final Map<String, Map<String, Cell>> cells = new LinkedHashMap<>();
  private final AtomicLong runCounter = new AtomicLong();

  public Suite(
      Environment env,
      List<LockTarget> targets,
      Duration duration,
      int rounds,
      Consumer<String> log) {
    this.env = env;
    this.targets = targets;
    this.duration = duration;
    this.rounds = rounds;
    this.log = log;
  }

  public Map<String, Map<String, Cell>> cells() {
    return cells;
  }

  public Cell cell(Scenario s, String targetId) {
    Map<String, Cell> byTarget = cells.get(s.key());
    return byTarget == null ? null : byTarget.get(targetId);
  }

  public void run(List<Scenario> scenarios, Duration warmUp) {
    if (!warmUp.isZero()) {
      for (LockTarget t : targets) {
        Op op = t.ops().contains(Op.FLOOR) ? Op.FLOOR : Op.PAIR;
        measure(new Scenario(op, 2), t, warmUp, false);
      }
    }
    for (int round = 0; round < rounds; round++) {
      for (Scenario s : scenarios) {
        List<LockTarget> order = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
          order.add(targets.get((i + round) % targets.size()));
        }
        for (LockTarget t : order) {
          if (t.ops().contains(s.op())) {
            measure(s, t, duration, true);
          }
        }
      }
    }
  }

  private void measure(Scenario s, LockTarget target, Duration d, boolean keep) {
    String run = "r" + runCounter.incrementAndGet();
    List<LockTarget.Client> clients = new ArrayList<>();
    java.util.concurrent.atomic.AtomicReferenceArray<Object> held =
        new java.util.concurrent.atomic.AtomicReferenceArray<>(Math.max(1, s.clients()));
    LockTarget.Client holder = null;
    Object holderHandle = null;
    String fixedKey = "bench:" + run + ":k";
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
      AtomicLong lastRelease = new AtomicLong();
      AtomicInteger lastHolder = new AtomicInteger(-1);
      Map<String, Long> cpuBefore = env.cpuNanos();
      long fsyncBefore = fsyncs(target.store());
      LoadGenerator.Result r =
          LoadGenerator.closedLoop(
              n,
              d,
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
                    Object h = c.acquireWaiting(fixedKey, Duration.ofSeconds(20));
                    long granted = System.nanoTime();
                    long previous = lastRelease.get();
                    long latency = previous > 0 && lastHolder.get() != w ? granted - previous : -1;
                    lastHolder.set(w);
                    lastRelease.set(System.nanoTime());
                    c.release(fixedKey, h);
                    return latency;
                  }
                }
                return System.nanoTime() - t0;
              });
      Map<String, Long> cpuAfter = env.cpuNanos();
      long fsyncAfter = fsyncs(target.store());
      if (keep) {
        Cell cell =
            cells
                .computeIfAbsent(s.key(), k -> new LinkedHashMap<>())
                .computeIfAbsent(target.id(), k -> new Cell());
        cell.latency.add(r.latency());
        cell.operations += r.operations();
        cell.errors += r.errors();
        cell.seconds += r.seconds();
        if (cell.firstError == null) {
          cell.firstError = r.firstError();
        }
        cpuAfter.forEach(
            (role, v) ->
                cell.cpuNanos.merge(role, v - cpuBefore.getOrDefault(role, 0L), Long::sum));
        if (fsyncBefore < 0 || fsyncAfter < 0) {
          cell.fsyncKnown = false;
        } else {
          cell.fsyncs += fsyncAfter - fsyncBefore;
        }
      }
      log.accept(
          String.format(
              "%-10s %-4s %s n=%d ops=%d p50=%.3fms p99=%.3fms %.0f/s errors=%d%s",
              s.key(),
              target.id(),
              keep ? "" : "(warm-up)",
              n,
              r.operations(),
              r.latency().getValueAtPercentile(50) / 1e6,
              r.latency().getValueAtPercentile(99) / 1e6,
              r.throughput(),
              r.errors(),
              r.firstError() == null ? "" : " first error: " + r.firstError()));
    } catch (Exception e) {
      log.accept(s.key() + " " + target.id() + " FAILED: " + LoadGenerator.describe(e));
      if (keep) {
        Cell cell =
            cells
                .computeIfAbsent(s.key(), k -> new LinkedHashMap<>())
                .computeIfAbsent(target.id(), k -> new Cell());
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

  private long fsyncs(Store store) {
    return switch (store) {
      case ETCD -> env.etcdFsyncs();
      case POSTGRES -> env.postgresWalSyncs();
      case NONE -> 0;
    };
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
