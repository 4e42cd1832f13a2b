package dev.fencepost.localstack;

import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What one local run does (the command line's options, validated).
 *
 * @param payouts payouts to seed
 * @param accounts accounts to spread them over
 * @param workers worker processes per round
 * @param backend {@code postgres} or {@code etcd}
 * @param keepRunning leave the services up after the summary, until Ctrl-C
 * @param summaryJson write the summary as JSON here (null: don't)
 * @param lockPort the lock server's port (0: any free port)
 * @param ambiguity the rail's rate of ambiguous outcomes
 * @param concurrency payout threads in each worker process ({@code fencepost.payout.concurrency})
 * @param railLatency the rail stub's latency: {@code <n>ms} fixed, or {@code a07} (lognormal,
 *     median 300 ms, p99 3 s, with the proxy's rail timeout at 10 s)
 * @param synchronousCommit PostgreSQL's synchronous_commit; off only as a benchmark's choice
 * @param commitDelay PostgreSQL's commit_delay: 100 µs unless a benchmark chooses (ADR 0206)
 * @param jfrDir record a JFR profile of the first worker process of each round here (null: don't)
 * @param pageSize candidates per query in the workers ({@code fencepost.payout.page-size})
 * @param payoutsPerGrant payouts of one account a worker's grant may carry ({@code
 *     fencepost.payout.payouts-per-grant}, ADR 0236)
 * @param railTimeout the proxy's rail timeout (null: 1 s, or 10 s with {@code a07})
 * @param workerDeadlineSeconds stop the workers this long after the first started, and summarise
 *     what finished (0: ten minutes a round)
 * @param productionJvm the services and workers run with the JVM's defaults, as the images do,
 *     instead of lean flags (C1 only, serial GC) that start a short run sooner
 * @param statements PostgreSQL keeps {@code pg_stat_statements} for the per-statement costs
 * @param warmup payouts seeded before the measured ones; the benchmark's figures are taken once
 *     they have finished
 * @param verbose follow every log on the console instead of progress bars
 */
public record RunOptions(
    int payouts,
    int accounts,
    int workers,
    String backend,
    boolean keepRunning,
    Path summaryJson,
    int lockPort,
    double ambiguity,
    int concurrency,
    String railLatency,
    boolean synchronousCommit,
    Duration commitDelay,
    Path jfrDir,
    int pageSize,
    int payoutsPerGrant,
    String railTimeout,
    int workerDeadlineSeconds,
    boolean productionJvm,
    boolean statements,
    int warmup,
    boolean verbose) {

  /** Every payout seeded: the warm-up's and the measured ones. */
  int seeded() {
    return warmup + payouts;
  }

  /** The proxy's timeout towards the rail. */
  public String railTimeout() {
    if (railTimeout != null) {
      return railTimeout;
    }
    // Short locally so ambiguous payouts end quickly; A-07's 10 s budget when the rail is as slow
    // as A-07 says, or its tail would time out.
    return railLatency.equals("a07") ? "10s" : "1s";
  }

  /** A benchmark option was given: the summary then shows the benchmark's figures too. */
  boolean benchmark() {
    return concurrency != 1
        || !railLatency.equals("0ms")
        || !synchronousCommit
        || !commitDelay.equals(EmbeddedPostgresServer.DEFAULT_COMMIT_DELAY)
        || jfrDir != null
        || pageSize != 100
        || payoutsPerGrant != 10
        || railTimeout != null
        || workerDeadlineSeconds > 0
        || productionJvm
        || statements
        || warmup > 0;
  }

  String railLatencyDistribution() {
    return railLatency.equals("a07") ? "LOGNORMAL" : "FIXED";
  }

  String railLatencyFixed() {
    return railLatency.equals("a07") ? "0ms" : railLatency;
  }
}
