package dev.fencepost.experiments.chaos;

import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.testsupport.generate.Generated;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Injects the chaos run's faults on a seeded schedule (ADR 0108): each step picks a fault and the
 * delay to the next one from one {@link Random}, so a seed names the fault sequence (the timing
 * against the workers still varies with the machine). Every fault is recorded as an {@code event}
 * before it is done. The schedule is the driver's, never a test's wait: the test waits on {@link
 * #finished()} and on the backlog, both conditions.
 */
final class ChaosDriver implements AutoCloseable {

  enum Fault {
    /**
     * SIGSTOP a worker for longer than its lease ({@link ExperimentRun#LOCK_TTL}), then SIGCONT it.
     */
    PAUSE_PAST_LEASE,
    /** SIGKILL a worker and start a replacement. */
    KILL_AND_REPLACE,
    /** SIGKILL the lock server and start it again on the same port. */
    LOCK_SERVER_RESTART,
    /** Stop the PostgreSQL server of lockdb, proxydb, batchdb and paydb and start it again. */
    POSTGRES_RESTART,
    /**
     * SIGKILL every process of that PostgreSQL server at once (a crash: nothing flushed, no
     * checkpoint) and start it again, which recovers from the WAL. With durable commits nothing a
     * commit acknowledged is lost, so no guard forgets an intent or a fence it reported.
     */
    POSTGRES_CRASH
  }

  private final ExperimentRun run;
  private final JavaProcess lockServer;
  private final Random random;
  private final int workerCount;
  private final List<Fault> menu;
  private final Duration window;
  private final BooleanSupplier settled;
  private final List<Worker> workers = Collections.synchronizedList(new ArrayList<>());
  private final List<Worker> stopped = Collections.synchronizedList(new ArrayList<>());
  private final Map<Fault, Integer> injected = new EnumMap<>(Fault.class);
  private final ScheduledExecutorService schedule =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "chaos-driver");
            t.setDaemon(true);
            return t;
          });
  private final AtomicBoolean finished = new AtomicBoolean();
  private volatile Throwable failure;
  private int nextWorker = 1;
  private long endsAtNanos;

  ChaosDriver(
      ExperimentRun run,
      JavaProcess lockServer,
      long seed,
      int workerCount,
      List<Fault> menu,
      Duration window,
      BooleanSupplier settled) {
    this.run = run;
    this.lockServer = lockServer;
    this.random = new Random(seed);
    this.workerCount = workerCount;
    this.menu = List.copyOf(menu);
    this.window = window;
    this.settled = settled;
  }

  /** Starts the workers (loop mode, on the chaos lock server). */
  void startWorkers() {
    for (int i = 0; i < workerCount; i++) {
      workers.add(startWorker("initial"));
    }
  }

  List<Worker> workers() {
    return List.copyOf(workers);
  }

  /**
   * Begins the faults: first every fault of the menu once in a seeded order (so that each kind is
   * exercised even when the backlog drains early), then seeded picks, until the window has passed
   * or the backlog has settled.
   */
  void begin() {
    endsAtNanos = System.nanoTime() + window.toNanos();
    List<Fault> firstRound = new ArrayList<>(menu);
    Collections.shuffle(firstRound, random);
    scheduleNext(firstRound);
  }

  boolean finished() {
    if (failure != null) {
      throw new IllegalStateException("the chaos driver failed", failure);
    }
    return finished.get();
  }

  synchronized Map<Fault, Integer> injected() {
    return new EnumMap<>(injected);
  }

  private void scheduleNext(List<Fault> firstRound) {
    long delayMillis = 2_000 + random.nextInt(4_000);
    schedule.schedule(() -> step(firstRound), delayMillis, TimeUnit.MILLISECONDS);
  }

  private void step(List<Fault> firstRound) {
    try {
      replaceDeadWorkers();
      if (firstRound.isEmpty() && (System.nanoTime() > endsAtNanos || settled.getAsBoolean())) {
        finished.set(true);
        return;
      }
      Fault fault = firstRound.isEmpty() ? Generated.pick(random, menu) : firstRound.remove(0);
      inject(fault);
      synchronized (this) {
        injected.merge(fault, 1, Integer::sum);
      }
      scheduleNext(firstRound);
    } catch (Throwable t) {
      failure = t;
      finished.set(true);
    }
  }

  private void inject(Fault fault) {
    switch (fault) {
      case PAUSE_PAST_LEASE -> {
        Worker w = pickRunning();
        if (w == null) {
          return;
        }
        long pauseMillis = 4_000 + random.nextInt(4_000);
        run.stop(
            w,
            "chaos: frozen for "
                + pauseMillis
                + " ms, past its "
                + ExperimentRun.LOCK_TTL
                + " lease");
        stopped.add(w);
        schedule.schedule(() -> thaw(w), pauseMillis, TimeUnit.MILLISECONDS);
      }
      case KILL_AND_REPLACE -> {
        Worker w = pickRunning();
        if (w == null) {
          return;
        }
        stopped.remove(w);
        workers.remove(w);
        run.kill(w, "chaos: crashed");
        workers.add(startWorker("replaces " + w.id()));
      }
      case LOCK_SERVER_RESTART -> {
        run.event(null, "RESTART", "chaos: lock server SIGKILLed (pid " + lockServer.pid() + ")");
        lockServer.kill();
        LockServers.restart(lockServer);
        run.event(null, "RESTARTED", "chaos: lock server up again (pid " + lockServer.pid() + ")");
      }
      case POSTGRES_RESTART -> {
        run.event(null, "RESTART", "chaos: PostgreSQL stopped (lockdb, proxydb, batchdb, paydb)");
        run.stack().postgres().stop();
        run.stack().postgres().start();
        run.event(null, "RESTARTED", "chaos: PostgreSQL up again");
      }
      case POSTGRES_CRASH -> {
        run.event(
            null,
            "CRASH",
            "chaos: every PostgreSQL process SIGKILLed (lockdb, proxydb, batchdb, paydb)");
        run.stack().postgres().crash();
        run.stack().postgres().start();
        run.event(null, "RESTARTED", "chaos: PostgreSQL recovered from its WAL and up again");
      }
      default -> throw new IllegalStateException(fault.name());
    }
  }

  private void thaw(Worker w) {
    try {
      if (stopped.remove(w) && w.isAlive()) {
        run.cont(w, "chaos: thawed");
      }
    } catch (Throwable t) {
      failure = t;
    }
  }

  private Worker pickRunning() {
    List<Worker> candidates =
        workers.stream().filter(w -> w.isAlive() && !stopped.contains(w)).toList();
    return candidates.isEmpty() ? null : Generated.pick(random, candidates);
  }

  /** A worker that ended by itself (its JVM gave up during an outage) is replaced too. */
  private void replaceDeadWorkers() {
    for (Worker w : List.copyOf(workers)) {
      if (!w.isAlive()) {
        workers.remove(w);
        stopped.remove(w);
        run.event(w, "EXITED", "worker ended by itself; replaced");
        workers.add(startWorker("replaces " + w.id() + " (exited)"));
      }
    }
  }

  private Worker startWorker(String why) {
    String id = "w" + nextWorker++;
    Worker w = run.worker(id).loop().lockServer(lockServer).start();
    run.event(w, "WORKER", "chaos: " + why);
    return w;
  }

  /**
   * Ends the faults: thaws every worker still frozen, and makes sure the lock server, PostgreSQL
   * and {@code workerCount} workers are up, so that the backlog can drain.
   */
  void quiesce() {
    schedule.shutdownNow();
    try {
      schedule.awaitTermination(5, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Worker w : List.copyOf(stopped)) {
      if (w.isAlive()) {
        run.cont(w, "chaos over: thawed");
      }
    }
    stopped.clear();
    if (!run.stack().postgres().isRunning()) {
      run.stack().postgres().start();
    }
    if (!lockServer.isAlive()) {
      LockServers.restart(lockServer);
    }
    replaceDeadWorkers();
  }

  @Override
  public void close() {
    schedule.shutdownNow();
  }
}
