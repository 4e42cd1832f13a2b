package dev.fencepost.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class CostMeterTest {

  private static final String SCRAPE =
      """
      # HELP http_server_requests_seconds
      # TYPE http_server_requests_seconds summary
      http_server_requests_seconds_count{error="none",exception="none",method="POST",outcome="SUCCESS",status="200",uri="/v1/locks/{key}/acquire"} 120.0
      http_server_requests_seconds_sum{error="none",exception="none",method="POST",outcome="SUCCESS",status="200",uri="/v1/locks/{key}/acquire"} 0.5
      http_server_requests_seconds_count{error="none",exception="none",method="POST",outcome="CLIENT_ERROR",status="409",uri="/v1/locks/{key}/acquire"} 3.0
      http_server_requests_seconds_count{error="none",exception="none",method="POST",outcome="SUCCESS",status="204",uri="/v1/locks/{key}/release"} 118.0
      http_server_requests_seconds_count{error="none",exception="none",method="GET",outcome="SUCCESS",status="200",uri="/actuator/prometheus"} 7.0
      fencepost_lock_operations_seconds_count{operation="acquire"} 123.0
      """;

  @Test
  void requestsAreCountedByMethodAndUriTemplateEvenWhenTheTemplateHoldsBraces() {
    assertThat(CostMeter.served(SCRAPE))
        .containsExactly(
            java.util.Map.entry("POST /v1/locks/{key}/acquire", 123L),
            java.util.Map.entry("POST /v1/locks/{key}/release", 118L));
  }

  @Test
  void anEmptyOrForeignScrapeCountsNothing() {
    assertThat(CostMeter.served("")).isEmpty();
    assertThat(CostMeter.served("jvm_threads_live_threads 42.0\n")).isEmpty();
  }

  @Test
  void theCompilersTimeInAWindowIsPerPayoutForEachJvmAndForAll() {
    CostMeter.Reading from = reading(1_000, 0, 4_000_000L, 10_000_000L);
    CostMeter.Reading to = reading(3_000, 200_000_000L, 10_000_000L, 30_000_000L);

    Costs.Window window = Costs.Window.between(from, to, true);
    Costs.Tenth tenth = Costs.Tenth.between(from, to);

    // 2,000 payouts, 200 ms of worker CPU; the lock server compiled for 6 ms, the workers for 20.
    assertThat(window.compilerCpuMillis())
        .containsEntry("lock-server", 0.003)
        .containsEntry("workers", 0.01)
        .containsEntry("all", 0.013);
    assertThat(window.cpuMillis()).containsEntry("all", 0.1);
    assertThat(tenth.compilerCpuMillis()).isEqualTo(0.013);
  }

  @Test
  void aWindowGivesTheWalsFullPageImagesPerPayoutAndCountsTheCheckpointsBegunInIt() {
    CostMeter.Reading from = reading(1_000, 0, 0, 0, 5_000, 7);
    CostMeter.Reading to = reading(3_000, 0, 0, 0, 9_000, 8);

    Costs.Window window = Costs.Window.between(from, to, true);
    Costs.Tenth tenth = Costs.Tenth.between(from, to);

    assertThat(window.walFullPageImages()).isEqualTo(2.0);
    assertThat(window.checkpoints()).isEqualTo(1);
    assertThat(tenth.checkpoints()).isEqualTo(1);
    assertThat(window.text("steady")).contains("(2.00 full-page images)", "1 checkpoint(s) begun");
  }

  @Test
  void aWindowGivesTheTcpConnectionsOpenedPerPayout() {
    // One connection opened per 100 payouts finished (the readings below).
    Costs.Window window =
        Costs.Window.between(reading(1_000, 0, 0, 0), reading(3_000, 0, 0, 0), true);

    assertThat(window.tcpOpens()).isEqualTo(0.01);
    assertThat(window.text("steady")).contains("0.010 TCP connections opened");
  }

  @Test
  void theConnectionsOpenedAreReadByNameFromTheKernelsTcpCounters() {
    // As Linux 6.1 writes it, trimmed to the first columns.
    List<String> snmp =
        List.of(
            "Ip: Forwarding DefaultTTL InReceives",
            "Ip: 1 64 123",
            "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails",
            "Tcp: 1 200 120000 -1 4711 4690 12",
            "Udp: InDatagrams NoPorts",
            "Udp: 5 0");

    assertThat(CostMeter.activeOpens(snmp)).isEqualTo(4711);
    // Unreadable counters fail the reading (tcpOpens() then counts 0), never a wrong column.
    assertThatThrownBy(() -> CostMeter.activeOpens(List.of("Tcp: ActiveOpens")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CostMeter.activeOpens(List.of("Tcp: RtoMin", "Tcp: 200")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void thisMachinesTcpCountersCanBeRead() throws Exception {
    assertThat(CostMeter.activeOpens(Files.readAllLines(Path.of("/proc/net/snmp")))).isPositive();
  }

  private static CostMeter.Reading reading(
      long finished, long workerCpu, long lockServerCompiling, long workersCompiling) {
    return reading(finished, workerCpu, lockServerCompiling, workersCompiling, 0, 0);
  }

  private static CostMeter.Reading reading(
      long finished,
      long workerCpu,
      long lockServerCompiling,
      long workersCompiling,
      long fullPageImages,
      long checkpoints) {
    return new CostMeter.Reading(
        finished,
        finished * 1_000_000L,
        java.time.Instant.ofEpochMilli(finished),
        java.util.Map.of("workers", workerCpu),
        java.util.Map.of("lock-server", lockServerCompiling, "workers", workersCompiling),
        java.util.Map.of(),
        java.util.Map.of(),
        0,
        finished / 100,
        0,
        0,
        fullPageImages,
        checkpoints,
        java.util.Map.of());
  }
}
