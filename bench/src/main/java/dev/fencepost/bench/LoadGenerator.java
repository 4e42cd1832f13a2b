package dev.fencepost.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Closed-loop and fixed-rate load with HdrHistogram. Latencies are recorded in nanoseconds.
 *
 * <p>Closed loop: each worker runs its body back to back until the deadline; the body measures and
 * returns the latency to record (or a negative number for "nothing to record").
 *
 * <p>Fixed rate: operations are scheduled at {@code start + i / rate}; a thread that falls behind
 * starts the next operation at once, and the recorded latency runs from the <em>intended</em>
 * start, not the actual one, so a stall is charged to every operation it delayed (correction for
 * coordinated omission). The uncorrected service time is kept in a second histogram.
 */
public final class LoadGenerator {

  private static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(120);

  private LoadGenerator() {}

  public static Histogram histogram() {
    return new Histogram(MAX_NANOS, 3);
  }

  /** The body of one closed-loop worker iteration. */
  @FunctionalInterface
  public interface Body {
    /** Runs one iteration; returns the latency in ns to record, or a negative value for none. */
    long run(int worker, long iteration) throws Exception;
  }

  /** What a run produced. */
  public record Result(
      Histogram latency,
      Histogram serviceTime,
      long operations,
      long errors,
      double seconds,
      String firstError) {

    public double throughput() {
      return seconds <= 0 ? 0 : operations / seconds;
    }
  }

  /** Per-worker preparation, run on the worker's own thread before the clock starts. */
  @FunctionalInterface
  public interface Setup {
    void prepare(int worker) throws Exception;
  }

  public static Result closedLoop(int workers, Duration duration, Body body) {
    return closedLoop(workers, duration, w -> {}, body);
  }

  /** Every worker runs at least one iteration, so even a very short run produces samples. */
  public static Result closedLoop(int workers, Duration duration, Setup setup, Body body) {
    List<Histogram> histograms = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      histograms.add(histogram());
    }
    AtomicLong errors = new AtomicLong();
    AtomicLong operations = new AtomicLong();
    AtomicReference<String> firstError = new AtomicReference<>();
    CountDownLatch ready = new CountDownLatch(workers);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(workers);
    long[] window = new long[2];
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      int worker = w;
      Thread t =
          new Thread(
              () -> {
                try {
                  setup.prepare(worker);
                } catch (Exception e) {
                  errors.incrementAndGet();
                  firstError.compareAndSet(null, "setup: " + describe(e));
                }
                ready.countDown();
                try {
                  go.await();
                  long deadline = window[0] + duration.toNanos();
                  long i = 0;
                  do {
                    try {
                      long nanos = body.run(worker, i++);
                      if (nanos >= 0) {
                        histograms.get(worker).recordValue(Math.min(nanos, MAX_NANOS));
                        operations.incrementAndGet();
                      }
                    } catch (Exception | AssertionError e) {
                      errors.incrementAndGet();
                      firstError.compareAndSet(null, describe(e));
                    }
                  } while (System.nanoTime() < deadline);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } finally {
                  done.countDown();
                }
              },
              "bench-worker-" + w);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
    awaitQuietly(ready);
    window[0] = System.nanoTime();
    go.countDown();
    awaitQuietly(done);
    window[1] = System.nanoTime();
    Histogram merged = histogram();
    histograms.forEach(merged::add);
    return new Result(
        merged,
        merged,
        operations.get(),
        errors.get(),
        (window[1] - window[0]) / 1e9,
        firstError.get());
  }

  /** An operation for fixed-rate load. */
  @FunctionalInterface
  public interface Operation {
    void run(int thread) throws Exception;
  }

  /**
   * {@code rate} operations per second in total, spread over {@code threads} threads, each owning
   * every {@code threads}-th slot of the schedule.
   */
  public static Result fixedRate(int threads, double rate, Duration duration, Operation op) {
    long intervalNanos = (long) (1e9 * threads / rate);
    List<Histogram> corrected = new ArrayList<>();
    List<Histogram> service = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      corrected.add(histogram());
      service.add(histogram());
    }
    AtomicLong errors = new AtomicLong();
    AtomicLong operations = new AtomicLong();
    AtomicReference<String> firstError = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(threads);
    long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
    long end = start + duration.toNanos();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      long offset = (long) (1e9 / rate) * t;
      Thread worker =
          new Thread(
              () -> {
                try {
                  for (long intended = start + offset; intended < end; intended += intervalNanos) {
                    long now;
                    while ((now = System.nanoTime()) < intended) {
                      TimeUnit.NANOSECONDS.sleep(Math.min(intended - now, 1_000_000));
                    }
                    long began = System.nanoTime();
                    try {
                      op.run(thread);
                      long finished = System.nanoTime();
                      corrected.get(thread).recordValue(Math.min(finished - intended, MAX_NANOS));
                      service.get(thread).recordValue(Math.min(finished - began, MAX_NANOS));
                      operations.incrementAndGet();
                    } catch (Exception e) {
                      errors.incrementAndGet();
                      firstError.compareAndSet(null, describe(e));
                    }
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } finally {
                  done.countDown();
                }
              },
              "bench-rate-" + t);
      worker.setDaemon(true);
      worker.start();
    }
    awaitQuietly(done);
    double seconds = (Math.max(System.nanoTime(), end) - start) / 1e9;
    Histogram c = histogram();
    corrected.forEach(c::add);
    Histogram s = histogram();
    service.forEach(s::add);
    return new Result(c, s, operations.get(), errors.get(), seconds, firstError.get());
  }

  static String describe(Throwable e) {
    String message = e.getClass().getSimpleName() + ": " + e.getMessage();
    return message.length() > 200 ? message.substring(0, 200) : message;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
