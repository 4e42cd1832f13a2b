package dev.fencepost.localstack;

import java.util.Map;

/**
 * What the benchmark reads from a run (ADR 0095, docs/benchmarks.md).
 *
 * @param processes worker processes per round
 * @param threadsPerProcess payout threads in each ({@code fencepost.payout.concurrency})
 * @param workers processes x threads: the benchmark's "workers"
 * @param warmup payouts finished before the measured window opened (latencies, the sustained rate
 *     and the costs are of the window after them)
 * @param railLatency the rail stub's latency shape
 * @param durability PostgreSQL's fsync, synchronous_commit, commit_delay, commit_siblings,
 *     full_page_writes, wal_sync_method
 * @param attemptP50Millis median time of attempts that ended POSTED, lock acquire to release
 * @param attemptP99Millis 99th percentile of the same
 * @param attemptMaxMillis the slowest of them
 * @param attempts attempts by outcome, every worker thread together
 * @param claimP50Millis median claim-to-POSTED (paydb timestamps)
 * @param claimP99Millis 99th percentile of the same
 * @param claimMaxMillis the slowest of them
 * @param steadyPayoutsPerSecond finished payouts over first claim to last finish
 * @param sustainedPayoutsPerSecond payouts finished in the measured window per second of it (the
 *     warm-up's end, or 10 % of the payouts, to 90 % of the measured payouts); without a cost
 *     meter, the middle 80 % of finishes over the time they took
 * @param railP50Millis the rail as the proxy saw it: intent recorded to outcome recorded
 * @param railP99Millis 99th percentile of the same
 * @param railMaxMillis the slowest of them
 * @param walSyncs WAL fsyncs of the whole server over the worker phase (pg_stat_wal.wal_sync)
 * @param loadAtStart load averages when the workers started
 * @param loadAtEnd load averages when they ended
 * @param stoppedAtDeadline the workers were stopped at {@code --worker-deadline}, unfinished
 * @param costs what a finished payout cost each process and store (null when not measured)
 */
public record Measures(
    int processes,
    int threadsPerProcess,
    int workers,
    int warmup,
    String railLatency,
    String durability,
    double attemptP50Millis,
    double attemptP99Millis,
    double attemptMaxMillis,
    Map<String, Long> attempts,
    double claimP50Millis,
    double claimP99Millis,
    double claimMaxMillis,
    double steadyPayoutsPerSecond,
    double sustainedPayoutsPerSecond,
    double railP50Millis,
    double railP99Millis,
    double railMaxMillis,
    long walSyncs,
    String loadAtStart,
    String loadAtEnd,
    boolean stoppedAtDeadline,
    Costs costs) {

  String text() {
    return String.format(
            "  benchmark       %d workers = %d process(es) x %d thread(s), rail %s, warm-up %d payouts%n"
                + "    attempt (lock acquire to release) of POSTED payouts: p50 %.1f ms, p99 %.1f ms,"
                + " max %.1f ms%n"
                + "    claim to POSTED (paydb): p50 %.1f ms, p99 %.1f ms, max %.1f ms%n"
                + "    throughput: %.1f payouts/s first claim to last finish, %.1f sustained"
                + " (measured window)%n"
                + "    rail as the proxy saw it: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n"
                + "    WAL fsyncs %d; %s%n"
                + "    attempts %s; load average %s at start, %s at end%s%n",
            workers,
            processes,
            threadsPerProcess,
            railLatency,
            warmup,
            attemptP50Millis,
            attemptP99Millis,
            attemptMaxMillis,
            claimP50Millis,
            claimP99Millis,
            claimMaxMillis,
            steadyPayoutsPerSecond,
            sustainedPayoutsPerSecond,
            railP50Millis,
            railP99Millis,
            railMaxMillis,
            walSyncs,
            durability,
            attempts,
            loadAtStart,
            loadAtEnd,
            stoppedAtDeadline ? "; STOPPED AT THE WORKER DEADLINE, unfinished" : "")
        + (costs == null ? "" : costs.text());
  }
}
