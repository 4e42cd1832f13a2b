package dev.fencepost.launcher.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ProcessCpuTest {

  @Test
  void fieldsAreCountedFromTheLastParenthesisSoACommandNameWithSpacesCannotShiftThem() {
    String stat =
        "4242 (a (weird) name) S 1 4242 4242 0 -1 4194304 101 0 0 0"
            + " 250 50 700 300 20 0 1 0 59877 3133440 409";

    ProcessCpu cpu = ProcessCpu.parse(stat);

    long tick = TimeUnit.SECONDS.toNanos(1) / 100;
    assertThat(cpu.ownNanos()).isEqualTo(300 * tick);
    assertThat(cpu.reapedChildrenNanos()).isEqualTo(1000 * tick);
    assertThat(cpu.totalNanos()).isEqualTo(1300 * tick);
  }

  @Test
  void aProcessThatIsGoneReadsAsNothingRatherThanFailing() {
    assertThat(ProcessCpu.of(-1)).isEqualTo(ProcessCpu.NONE);
    assertThat(ProcessCpu.of(Integer.MAX_VALUE)).isEqualTo(ProcessCpu.NONE);
  }

  @Test
  void aChildThatBurnedCpuAndExitedIsCountedInItsParentsReapedChildren() throws Exception {
    long before = ProcessCpu.self().reapedChildrenNanos();
    // About 0.3 s of CPU in a child that then exits; Process.waitFor reaps it.
    Process child =
        new ProcessBuilder("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done").start();
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();

    long reaped = ProcessCpu.self().reapedChildrenNanos() - before;

    assertThat(reaped).isPositive();
    assertThat(ProcessCpu.of(child.pid())).isEqualTo(ProcessCpu.NONE);
  }

  @Test
  void aTreeCountsTheLiveDescendantsOwnTime() throws Exception {
    // The grandchild burns CPU, says so, and stays alive: its time is in no one's reaped children.
    Process parent =
        new ProcessBuilder(
                "sh",
                "-c",
                "(i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo busy; sleep 30) & wait")
            .start();
    try (var out =
        new java.io.BufferedReader(new java.io.InputStreamReader(parent.getInputStream()))) {
      assertThat(out.readLine()).isEqualTo("busy");
      long pid = parent.pid();

      assertThat(ProcessCpu.treeNanos(pid)).isGreaterThan(ProcessCpu.of(pid).totalNanos());
    } finally {
      parent.descendants().forEach(ProcessHandle::destroyForcibly);
      parent.destroyForcibly().waitFor();
    }
  }

  @Test
  void aChildReapedBetweenItsParentsReadingAndItsOwnIsCountedFromTheNextSnapshotsThatAgree() {
    // The parent read with 100 ticks of reaped children; the child, 200 ticks, reaped before it was
    // listed: the first snapshot holds it nowhere. The next two read it in the parent's.
    Deque<Map<Long, ProcessCpu>> snapshots =
        new ArrayDeque<>(
            List.of(
                Map.of(1L, new ProcessCpu(10, 100)),
                Map.of(1L, new ProcessCpu(10, 300)),
                Map.of(1L, new ProcessCpu(10, 300))));

    assertThat(ProcessCpu.settledTotal(snapshots::poll)).isEqualTo(310);
    assertThat(snapshots).isEmpty();
  }

  @Test
  void aChildReadAliveThenReapedIsCountedOnce() {
    Map<Long, ProcessCpu> childAlive = new LinkedHashMap<>();
    childAlive.put(1L, new ProcessCpu(10, 100));
    childAlive.put(2L, new ProcessCpu(200, 0));
    Deque<Map<Long, ProcessCpu>> snapshots =
        new ArrayDeque<>(
            List.of(
                childAlive,
                Map.of(1L, new ProcessCpu(10, 300)),
                Map.of(1L, new ProcessCpu(10, 300))));

    assertThat(ProcessCpu.settledTotal(snapshots::poll)).isEqualTo(310);
  }

  @Test
  void twoSnapshotsThatAgreeAreEnough() {
    Map<Long, ProcessCpu> quiet = Map.of(1L, new ProcessCpu(10, 100), 2L, new ProcessCpu(50, 0));
    Deque<Map<Long, ProcessCpu>> snapshots = new ArrayDeque<>(List.of(quiet, quiet, quiet));

    assertThat(ProcessCpu.settledTotal(snapshots::poll)).isEqualTo(160);
    assertThat(snapshots).hasSize(1);
  }

  @Test
  void aTreeThatNeverStopsReapingIsReadAFixedNumberOfTimesAndItsLargestReadingKept() {
    // Every snapshot finds another reaped time; the fourth reads highest, as one that missed no
    // child would among snapshots that each missed one.
    AtomicInteger taken = new AtomicInteger();

    long total =
        ProcessCpu.settledTotal(
            () -> {
              int n = taken.incrementAndGet();
              return Map.of(1L, new ProcessCpu(10, n == 4 ? 5_000 : 100L * n));
            });

    assertThat(taken).hasValue(ProcessCpu.SNAPSHOTS);
    assertThat(total).isEqualTo(5_010);
  }

  @Test
  void aTreeReadWhileItsChildrenAreReapedNeverReadsLessThanBefore() throws Exception {
    // Sixteen children each burn about 0.3 s of CPU and exit while the tree is read again and
    // again; the shell reaps each as it ends, as a postmaster reaps the backends of a closed pool.
    // A reading that missed one would fall by its 0.3 s. The kernel adds a reaped child's time to
    // its parent's in the units it reported it in, so nothing else lowers a reading; the tolerance
    // of two ticks is for the arithmetic of the conversion to ticks only.
    int children = 16;
    Process parent =
        new ProcessBuilder(
                "sh",
                "-c",
                "for n in $(seq "
                    + children
                    + "); do (i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done) & done;"
                    + " wait; echo reaped; read line")
            .start();
    try (var out =
        new java.io.BufferedReader(new java.io.InputStreamReader(parent.getInputStream()))) {
      CompletableFuture<String> reaped = CompletableFuture.supplyAsync(() -> readLine(out));
      long tick = TimeUnit.SECONDS.toNanos(1) / 100;
      long previous = ProcessCpu.treeNanos(parent.pid());
      long first = previous;
      long lowest = Long.MAX_VALUE;
      int readings = 0;
      while (!reaped.isDone()) {
        long now = ProcessCpu.treeNanos(parent.pid());
        lowest = Math.min(lowest, now - previous);
        previous = Math.max(previous, now);
        readings++;
      }
      assertThat(reaped.get(60, TimeUnit.SECONDS)).isEqualTo("reaped");
      long last = ProcessCpu.treeNanos(parent.pid());

      assertThat(readings).isPositive();
      assertThat(lowest).isGreaterThanOrEqualTo(-2 * tick);
      assertThat(last - first).isGreaterThan(children * 5 * tick);
    } finally {
      parent.descendants().forEach(ProcessHandle::destroyForcibly);
      parent.destroyForcibly().waitFor();
    }
  }

  private static String readLine(java.io.BufferedReader out) {
    try {
      return out.readLine();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void onlyHotSpotsCompilerThreadsAreCountedAsCompiling() {
    assertThat(ProcessCpu.isCompilerThread("71 (C2 CompilerThre) S 1 2 3 0 -1 0 0 0 0 0 9 1"))
        .isTrue();
    assertThat(ProcessCpu.isCompilerThread("72 (C1 CompilerThre) S 1 2 3 0 -1 0 0 0 0 0 9 1"))
        .isTrue();
    assertThat(ProcessCpu.isCompilerThread("73 (GC Thread#0) S 1 2 3 0 -1 0 0 0 0 0 9 1"))
        .isFalse();
    assertThat(ProcessCpu.isCompilerThread("74 (https-jsse-nio-) S 1 2 3 0 -1 0 0 0 0 0 9 1"))
        .isFalse();
    assertThat(ProcessCpu.isCompilerThread("75 (C2) S 1 2 3 0 -1 0 0 0 0 0 9 1")).isFalse();
    assertThat(ProcessCpu.isCompilerThread("no name here")).isFalse();
  }

  @Test
  void aRunningJvmsCompilerThreadsHaveUsedSomeButNotAllOfItsCpu() {
    // Work enough to be compiled: this JVM's compilers have run by the time it is done.
    long sum = 0;
    for (int i = 0; i < 50_000_000; i++) {
      sum += Integer.toString(i & 1023).length();
    }
    assertThat(sum).isPositive();
    long pid = ProcessHandle.current().pid();

    long compiling = compilerNanos(pid);

    assertThat(compiling).isPositive().isLessThan(ProcessCpu.of(pid).ownNanos());
  }

  @Test
  void aProcessThatIsGoneHasNoCompilerTime() {
    assertThat(compilerNanos(-1)).isZero();
    assertThat(compilerNanos(Integer.MAX_VALUE)).isZero();
  }

  private static long compilerNanos(long pid) {
    return ProcessCpu.compilerThreads(pid).values().stream().mapToLong(Long::longValue).sum();
  }
}
