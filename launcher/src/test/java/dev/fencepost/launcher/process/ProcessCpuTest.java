package dev.fencepost.launcher.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
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
