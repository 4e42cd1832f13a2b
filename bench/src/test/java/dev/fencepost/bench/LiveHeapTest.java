package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The heap figures of the heartbeat cell are read from {@code jcmd GC.heap_info}, whose wording
 * changed between Java 17 and Java 21: both are read, and output without a used heap stops the run
 * instead of becoming "NaN B per session" in a report.
 */
class LiveHeapTest {

  @Test
  void theUsedHeapIsReadFromJava17sOutput() {
    String java17 =
        """
        29077:
         garbage-first heap   total 397312K, used 18274K [0x0000000687400000, 0x0000000800000000)
          region size 4096K, 4 young (16384K), 0 survivors (0K)
         Metaspace       used 1061K, committed 1216K, reserved 1114112K
        """;
    assertThat(ServerLoad.usedHeapBytes(java17)).isEqualTo(18_274L * 1024);
  }

  @Test
  void theUsedHeapIsReadFromJava25sOutputAndNotFromMetaspace() {
    String java25 =
        """
        29033:
        garbage-first heap   total reserved 6172672K, committed 393216K, used 12094K [0x0000000687400000, 0x0000000800000000)
         region size 4096K, 3 young (12288K), 1 survivors (4096K)
        Metaspace       used 1061K, committed 1216K, reserved 1114112K
        """;
    assertThat(ServerLoad.usedHeapBytes(java25)).isEqualTo(12_094L * 1024);
  }

  @Test
  void theRunningJdksOwnOutputIsRead() throws Exception {
    Process jcmd =
        new ProcessBuilder(
                new File(System.getProperty("java.home"), "bin/jcmd").getPath(),
                Long.toString(ProcessHandle.current().pid()),
                "GC.heap_info")
            .redirectErrorStream(true)
            .start();
    String out = new String(jcmd.getInputStream().readAllBytes());
    assertThat(jcmd.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(ServerLoad.usedHeapBytes(out))
        .isPositive()
        .isLessThanOrEqualTo(Runtime.getRuntime().totalMemory());
  }

  @Test
  void outputWithoutAUsedHeapStopsTheRunAndShowsWhatJcmdSaid() {
    assertThatThrownBy(() -> ServerLoad.usedHeapBytes("jcmd failed: No such process"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("No such process");
  }
}
