package dev.fencepost.experiments.chaos;

import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.LockBackend;
import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.testsupport.generate.Generated;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.awaitility.Awaitility;

/**
 * Injects the chaos run's faults on a seeded schedule (ADR 0108): each step picks a fault and the
 * delay to the next one from one {@link Random}, so a seed names the fault sequence (the timing
 * against the workers still varies with the machine). Every fault is recorded as an {@code event}
 * before it is done; on etcd the driver also kills the leader and freezes members (ADR 0171). The
 * schedule is the driver's, never a test's wait: the test waits on {@link #finished()} and on the
 * backlog, both conditions.
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
    POSTGRES_CRASH,
    /**
     * On etcd: find the member that leads (each member's own status: its leader id is its member
     * id), SIGKILL it while the workers acquire and renew, wait until the other two elect a leader
     * of a later raft term, and restart it on its ports and data directory after a seeded delay, so
     * it rejoins as a follower (ADR 0171).
     */
    ETCD_LEADER_KILL(true),
    /**
     * On etcd: SIGSTOP a seeded member for longer than two election timeouts, then SIGCONT it; a
     * frozen leader is deposed meanwhile, a frozen follower falls behind and catches up.
     */
    ETCD_MEMBER_PAUSE(true);

    private final boolean etcdOnly;

    Fault() {
      this(false);
    }

    Fault(boolean etcdOnly) {
      this.etcdOnly = etcdOnly;
    }

    /**
     * The faults of a run on {@code backend}: every fault for etcd (the PostgreSQL restarts and
     * crashes still hit paydb, proxydb and batchdb), all but the etcd ones for PostgreSQL.
     */
    static List<Fault> menu(LockBackend backend) {
      return Arrays.stream(values())
          .filter(f -> backend == LockBackend.ETCD || !f.etcdOnly)
          .toList();
    }
  }

  private final ExperimentRun run;
  private final JavaProcess lockServer;
  private final EtcdCluster etcd;
  private final Random random;
  private final int workerCount;
  private final List<Fault> menu;
  private final Duration window;
  private final BooleanSupplier settled;
  private final List<Worker> workers = Collections.synchronizedList(new ArrayList<>());
  private final List<Worker> stopped = Collections.synchronizedList(new ArrayList<>());
  private final Map<Fault, Integer> injected = new EnumMap<>(Fault.class);
  private int leadersElected;
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
      EtcdCluster etcd,
      long seed,
      int workerCount,
      List<Fault> menu,
      Duration window,
      BooleanSupplier settled) {
    this.run = run;
    this.lockServer = lockServer;
    this.etcd = etcd;
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
   * or the backlog has settled. On etcd the etcd faults lead the first round, so that the leader
   * kill lands while the backlog is still large and the workers are acquiring and renewing.
   */
  void begin() {
    endsAtNanos = System.nanoTime() + window.toNanos();
    List<Fault> etcdFaults = new ArrayList<>(menu.stream().filter(f -> f.etcdOnly).toList());
    List<Fault> others = new ArrayList<>(menu.stream().filter(f -> !f.etcdOnly).toList());
    Collections.shuffle(others, random);
    List<Fault> firstRound = new ArrayList<>();
    if (!etcdFaults.isEmpty()) {
      Collections.shuffle(etcdFaults, random);
      firstRound.addAll(etcdFaults);
    }
    firstRound.addAll(others);
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

  /** How many leader kills were followed by a leader of a later raft term. */
  synchronized int leadersElected() {
    return leadersElected;
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
      boolean first = !firstRound.isEmpty();
      Fault fault = first ? firstRound.remove(0) : Generated.pick(random, menu);
      if (inject(fault)) {
        synchronized (this) {
          injected.merge(fault, 1, Integer::sum);
        }
      } else if (first) {
        // Nothing to do it to right now (every worker frozen, an etcd member still down): the
        // first round still owes this kind.
        firstRound.add(fault);
      }
      scheduleNext(firstRound);
    } catch (Throwable t) {
      failure = t;
      finished.set(true);
    }
  }

  /** Does {@code fault}; false if there was nothing to do it to. */
  private boolean inject(Fault fault) {
    switch (fault) {
      case PAUSE_PAST_LEASE -> {
        Worker w = pickRunning();
        if (w == null) {
          return false;
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
          return false;
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
      case ETCD_LEADER_KILL -> {
        return killEtcdLeader();
      }
      case ETCD_MEMBER_PAUSE -> {
        return pauseEtcdMember();
      }
      default -> throw new IllegalStateException(fault.name());
    }
    return true;
  }

  /** How long an etcd member may take to be elected, or to serve again. */
  static final Duration ETCD_WAIT = Duration.ofSeconds(60);

  /**
   * Kills the leader of a whole cluster (never a second member while one is down: two of three down
   * is an outage, UC-08's subject, not a failover), and schedules its restart.
   */
  private boolean killEtcdLeader() {
    if (!etcdWhole()) {
      return false;
    }
    Leading before = awaitLeading(m -> true);
    EtcdMember leader = before.member();
    long restartMillis = 1_000 + random.nextInt(4_000);
    run.event(
        null,
        "ETCD_LEADER_KILL",
        "chaos: etcd leader "
            + leader.name()
            + " (pid "
            + leader.pid().map(String::valueOf).orElse("?")
            + ", raft term "
            + before.term()
            + ") SIGKILLed; restart in "
            + restartMillis
            + " ms");
    leader.kill();
    Leading after = awaitLeading(m -> m != leader);
    // Raft: a leader of a later term is one the survivors elected; the same term means the member
    // killed was not the leader, and the kill tested no failover.
    boolean elected = after.term() > before.term();
    if (elected) {
      synchronized (this) {
        leadersElected++;
      }
    }
    run.event(
        null,
        "ETCD_LEADER",
        "chaos: "
            + after.member().name()
            + (elected ? " elected leader (raft term " : " still leads (raft term ")
            + after.term()
            + ", was "
            + before.term()
            + ")");
    schedule.schedule(() -> restartEtcd(leader), restartMillis, TimeUnit.MILLISECONDS);
    return true;
  }

  /** A member that leads, and the raft term it leads in (from its own status). */
  record Leading(EtcdMember member, long term) {}

  /** Waits (bounded) for a leader that {@code which} accepts and reads its term. */
  private Leading awaitLeading(Predicate<EtcdMember> which) {
    return Awaitility.await("an etcd leader and its term")
        .atMost(ETCD_WAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                etcd.leader()
                    .filter(which)
                    .flatMap(
                        m ->
                            etcd.status(m)
                                .filter(st -> st.getLeader() == st.getHeader().getMemberId())
                                .map(st -> new Leading(m, st.getRaftTerm()))),
            Optional::isPresent)
        .orElseThrow();
  }

  private void restartEtcd(EtcdMember member) {
    try {
      if (!member.isRunning()) {
        member.restart();
        run.event(null, "ETCD_RESTARTED", "chaos: etcd " + member.name() + " rejoined");
      }
    } catch (Throwable t) {
      failure = t;
    }
  }

  /** SIGSTOPs a seeded member of a whole cluster past two election timeouts. */
  private boolean pauseEtcdMember() {
    if (!etcdWhole()) {
      return false;
    }
    EtcdMember member = Generated.pick(random, etcd.members());
    boolean wasLeader = etcd.leader().filter(l -> l == member).isPresent();
    long pauseMillis = 2 * etcd.electionTimeout().toMillis() + random.nextInt(2_000);
    run.event(
        null,
        "ETCD_PAUSE",
        "chaos: etcd "
            + member.name()
            + (wasLeader ? " (the leader)" : " (a follower)")
            + " SIGSTOPped for "
            + pauseMillis
            + " ms, past its "
            + etcd.electionTimeout().toMillis()
            + " ms election timeout");
    member.pause();
    schedule.schedule(() -> resumeEtcd(member), pauseMillis, TimeUnit.MILLISECONDS);
    return true;
  }

  private void resumeEtcd(EtcdMember member) {
    try {
      if (member.isPaused()) {
        run.event(null, "ETCD_RESUME", "chaos: etcd " + member.name() + " SIGCONTed");
        member.resume();
      }
    } catch (Throwable t) {
      failure = t;
    }
  }

  /** Every member running and none frozen. */
  private boolean etcdWhole() {
    return etcd.members().stream().allMatch(m -> m.isRunning() && !m.isPaused());
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
    if (etcd != null) {
      for (EtcdMember m : etcd.members()) {
        if (m.isPaused()) {
          run.event(null, "ETCD_RESUME", "chaos over: etcd " + m.name() + " SIGCONTed");
          m.resume();
        } else if (!m.isRunning()) {
          m.restart();
          run.event(null, "ETCD_RESTARTED", "chaos over: etcd " + m.name() + " rejoined");
        }
      }
      etcd.awaitLeader(ETCD_WAIT);
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
