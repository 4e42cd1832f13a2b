package dev.fencepost.launcher.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * CPU time a process has used, read from Linux's {@code /proc/<pid>/stat}: its own (user + system)
 * and that of its children it has already waited for.
 *
 * <p>The second part is why this exists rather than {@link ProcessHandle.Info#totalCpuDuration()}:
 * a PostgreSQL backend that ends during a measurement, or a payout worker that exits, is gone from
 * {@code /proc}, but its time is added to its parent's children's time when the parent reaps it
 * (the postmaster reaps its backends; the JVM that started a worker reaps it). A delta of own plus
 * reaped children over a window therefore counts every process of a tree that lived in it.
 */
public record ProcessCpu(long ownNanos, long reapedChildrenNanos) {

  /** Nothing read: the process is gone or this is not Linux. */
  public static final ProcessCpu NONE = new ProcessCpu(0, 0);

  private static final long NANOS_PER_TICK = TimeUnit.SECONDS.toNanos(1) / clockTicksPerSecond();

  /** The process's CPU so far, or {@link #NONE} when {@code /proc/<pid>/stat} cannot be read. */
  public static ProcessCpu of(long pid) {
    if (pid <= 0) {
      return NONE;
    }
    try {
      return parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    } catch (IOException | RuntimeException e) {
      return NONE; // exited between listing and reading
    }
  }

  /** This JVM's own CPU and that of the children it has reaped (workers that have exited). */
  public static ProcessCpu self() {
    return of(ProcessHandle.current().pid());
  }

  /**
   * {@code pid}'s own and reaped children's CPU plus that of every descendant still alive: the
   * whole tree's CPU so far, e.g. a postmaster and its backends, read {@linkplain #settledTotal
   * settled} so that a descendant reaped while the tree is read is counted once.
   */
  public static long treeNanos(long pid) {
    return settledTotal(() -> tree(pid));
  }

  /**
   * {@code pid} and its live descendants, each as read, in the order read: parents before their
   * children ({@link ProcessHandle#descendants} walks the tree level by level), so no process is
   * read after a child it has already reaped.
   */
  static Map<Long, ProcessCpu> tree(long pid) {
    Map<Long, ProcessCpu> tree = new LinkedHashMap<>();
    tree.put(pid, of(pid));
    ProcessHandle.of(pid)
        .ifPresent(handle -> handle.descendants().forEach(d -> tree.put(d.pid(), of(d.pid()))));
    return tree;
  }

  /**
   * The total CPU of a set of processes read by {@code snapshot}, taken when no child's time moved
   * while it was read.
   *
   * <p>A child's time moves to its parent's reaped children when the parent waits for it. A
   * snapshot that reads the parent, then finds the child already reaped, has the child's time in
   * neither: at the end of a run, when a worker's connections close and their PostgreSQL backends
   * exit together, that is seconds of CPU, and a reading lower than the one before it. So snapshots
   * are taken until one agrees with the next on the reaped time of every process in both: then no
   * child was reaped between its parent's two readings, which span everything the first snapshot
   * read after that parent, and the first snapshot's total is returned. A child counted twice, read
   * alive and in its parent's reaped time as well, would need its parent read after the child was
   * reaped and the child read after its parent: reading parents first leaves only the instant in
   * which the kernel has added a child's time to its parent's and not yet removed the child. After
   * {@value #SNAPSHOTS} snapshots without agreement (children reaped without pause) the largest
   * total among them is returned, since a snapshot that missed a child reads low.
   */
  public static long settledTotal(Supplier<Map<Long, ProcessCpu>> snapshot) {
    Map<Long, ProcessCpu> first = snapshot.get();
    long largest = total(first);
    for (int taken = 2; ; taken++) {
      Map<Long, ProcessCpu> next = snapshot.get();
      if (reapedAlike(first, next)) {
        return total(first);
      }
      largest = Math.max(largest, total(next));
      if (taken == SNAPSHOTS) {
        return largest;
      }
      first = next;
    }
  }

  /** At most this many snapshots in {@link #settledTotal}. */
  static final int SNAPSHOTS = 10;

  private static boolean reapedAlike(Map<Long, ProcessCpu> first, Map<Long, ProcessCpu> next) {
    for (Map.Entry<Long, ProcessCpu> process : first.entrySet()) {
      ProcessCpu again = next.get(process.getKey());
      if (again != null
          && again.reapedChildrenNanos() != process.getValue().reapedChildrenNanos()) {
        return false;
      }
    }
    return true;
  }

  private static long total(Map<Long, ProcessCpu> processes) {
    return processes.values().stream().mapToLong(ProcessCpu::totalNanos).sum();
  }

  /**
   * The CPU so far of each of {@code pid}'s JIT compiler threads, by thread id: HotSpot's {@code C1
   * CompilerThread<n>} and {@code C2 CompilerThread<n>} (the kernel keeps 15 characters of a
   * thread's name: {@code C2 CompilerThre}), from {@code /proc/<pid>/task/<tid>/stat}; empty when
   * the process is gone or is not a HotSpot JVM. Read beside {@link #of} it says how much of a
   * JVM's CPU went to compiling its own code rather than running it: a measure of how far from warm
   * it is. HotSpot may stop a compiler thread it no longer needs and start another later; a stopped
   * thread's time leaves {@code /proc/<pid>/task} with it, so a caller that adds up a window keeps
   * what it last saw of each thread.
   */
  public static Map<Long, Long> compilerThreads(long pid) {
    Map<Long, Long> byThread = new TreeMap<>();
    if (pid <= 0) {
      return byThread;
    }
    try (Stream<Path> threads = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      threads.forEach(
          task -> {
            try {
              String stat = Files.readString(task.resolve("stat"));
              if (isCompilerThread(stat)) {
                byThread.put(Long.parseLong(task.getFileName().toString()), parse(stat).ownNanos());
              }
            } catch (IOException | RuntimeException e) {
              // the thread ended between listing and reading
            }
          });
    } catch (IOException | RuntimeException e) {
      // the process is gone
    }
    return byThread;
  }

  /** Whether a thread's {@code stat} line names one of HotSpot's JIT compiler threads. */
  static boolean isCompilerThread(String stat) {
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    if (open < 0 || close < open) {
      return false;
    }
    String name = stat.substring(open + 1, close);
    return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
  }

  /** Own plus reaped children. */
  public long totalNanos() {
    return ownNanos + reapedChildrenNanos;
  }

  /**
   * Parses a {@code stat} line. The command name (field 2) is in parentheses and may hold spaces or
   * parentheses itself, so fields are counted from the last ')': utime, stime, cutime and cstime
   * are fields 14 to 17 of the line.
   */
  static ProcessCpu parse(String stat) {
    String[] after = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
    // after[0] is field 3 (state), so field n is after[n - 3].
    long utime = Long.parseLong(after[11]);
    long stime = Long.parseLong(after[12]);
    long cutime = Long.parseLong(after[13]);
    long cstime = Long.parseLong(after[14]);
    return new ProcessCpu((utime + stime) * NANOS_PER_TICK, (cutime + cstime) * NANOS_PER_TICK);
  }

  /** USER_HZ: 100 on every Linux this runs on; {@code getconf} confirms it where it can. */
  private static long clockTicksPerSecond() {
    try {
      Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(getconf.getInputStream().readAllBytes()).trim();
      if (getconf.waitFor(5, TimeUnit.SECONDS) && getconf.exitValue() == 0) {
        return Long.parseLong(out);
      }
    } catch (IOException | RuntimeException e) {
      // fall through to the kernel's default
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 100;
  }
}
