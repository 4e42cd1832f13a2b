package dev.fencepost.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongPredicate;
import org.HdrHistogram.Histogram;

/**
 * Closed-loop and fixed-rate load with HdrHistogram. Latencies are recorded in nanoseconds.
 *
 * <p>Closed loop: each worker runs its body back to back until the run ends (see {@link Timing}: a
 * warm-up with the same clients, then a window of at least a minimum length, extended up to a
 * maximum until there are enough samples); the body measures and returns the latency to record (or
 * a negative number for "nothing to record").
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
    return closedLoop(workers, Timing.fixed(duration), w -> {}, body, Window.NONE);
  }

  /**
   * How long a closed-loop run lasts: {@code warmUp} first (same clients, nothing recorded), then
   * at least {@code min}; past {@code min} it goes on while {@code enough} (given the operations
   * recorded so far in the window) says no, up to {@code max}.
   */
  public record Timing(Duration warmUp, Duration min, Duration max, LongPredicate enough) {
    public Timing {
      if (max.compareTo(min) < 0) {
        max = min;
      }
    }

    /** Exactly {@code d}, no warm-up. */
    public static Timing fixed(Duration d) {
      return new Timing(Duration.ZERO, d, d, recorded -> true);
    }
  }

  /** Told when the measurement window of a run opens. */
  public interface Window {
    Window NONE = new Window() {};

    /** Before any worker starts: the window will open at {@code nanos} (System.nanoTime). */
    default void opensAt(long nanos) {}

    /** When the window opens (after the warm-up), on the coordinating thread. */
    default void opened() {}

    /**
     * When the window closes at {@code nanos}: the workers are told to stop and finish what they
     * are doing (their last iterations are still recorded, but a waiting queue then drains).
     */
    default void closes(long nanos) {}
  }

  /**
   * Every worker runs at least one iteration inside the window, so even a very short run produces
   * samples. Iterations that began during the warm-up are not recorded (their errors are counted).
   */
  public static Result closedLoop(
      int workers, Timing timing, Setup setup, Body body, Window window) {
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
    AtomicBoolean stop = new AtomicBoolean();
    long[] window0 = new long[1];
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
                  long measureFrom = window0[0];
                  long i = 0;
                  boolean measured = false;
                  do {
                    long began = System.nanoTime();
                    boolean inWindow = began >= measureFrom;
                    try {
                      long nanos = body.run(worker, i++);
                      if (nanos >= 0 && inWindow) {
                        histograms.get(worker).recordValue(Math.min(nanos, MAX_NANOS));
                        operations.incrementAndGet();
                      }
                    } catch (Exception | AssertionError e) {
                      errors.incrementAndGet();
                      firstError.compareAndSet(null, describe(e));
                    }
                    measured |= inWindow;
                  } while (!stop.get() || !measured);
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
    long measureFrom = System.nanoTime() + timing.warmUp().toNanos();
    window0[0] = measureFrom;
    window.opensAt(measureFrom);
    if (timing.warmUp().isZero()) {
      window.opened();
    }
    go.countDown();
    if (!timing.warmUp().isZero()) {
      sleepUntil(measureFrom);
      window.opened();
    }
    sleepUntil(measureFrom + timing.min().toNanos());
    long hardEnd = measureFrom + timing.max().toNanos();
    while (System.nanoTime() < hardEnd && !timing.enough().test(operations.get())) {
      sleepUntil(Math.min(hardEnd, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20)));
    }
    window.closes(System.nanoTime());
    stop.set(true);
    awaitQuietly(done);
    long end = System.nanoTime();
    Histogram merged = histogram();
    histograms.forEach(merged::add);
    return new Result(
        merged,
        merged,
        operations.get(),
        errors.get(),
        (end - measureFrom) / 1e9,
        firstError.get());
  }

  private static void sleepUntil(long nanos) {
    long left;
    while ((left = nanos - System.nanoTime()) > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
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
