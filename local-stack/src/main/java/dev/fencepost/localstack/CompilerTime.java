package dev.fencepost.localstack;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What each JVM's JIT compiler threads have used so far, as {@link CostMeter} adds it up over a run
 * (ADR 0217). Each thread counts at the most it was ever seen to use: HotSpot may stop a compiler
 * thread, and a worker process exits at the end of its round, and either takes the thread's time
 * out of {@code /proc} with it. Without this, a window that spans such an exit would count the
 * compiling as negative.
 */
final class CompilerTime {

  private record CompilerThread(long pid, long tid) {}

  private final Map<CompilerThread, Long> seen = new ConcurrentHashMap<>();

  /**
   * Records what {@code pid}'s compiler threads have used by now ({@code
   * ProcessCpu.compilerThreads}) and returns its total so far.
   */
  long record(long pid, Map<Long, Long> nanosByThread) {
    nanosByThread.forEach(
        (tid, nanos) -> seen.merge(new CompilerThread(pid, tid), nanos, Math::max));
    return soFar(pid);
  }

  /** {@code pid}'s compiler threads' time so far, every thread ever seen in it included. */
  long soFar(long pid) {
    return seen.entrySet().stream()
        .filter(e -> e.getKey().pid() == pid)
        .mapToLong(Map.Entry::getValue)
        .sum();
  }
}
