package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.Payout;
import dev.fencepost.security.FencepostRole;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.job.parameters.JobParametersBuilder;
import org.springframework.batch.core.launch.JobOperator;
import org.springframework.batch.core.listener.ItemWriteListener;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.infrastructure.item.Chunk;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@code reconciliationJob}'s {@code entries} step is chunk-oriented and restartable (ADR 0178): a
 * job that fails in the middle of a chunk, after that chunk's findings reached paydb but before the
 * job repository recorded the chunk (a crash between the two commits), is restarted from the job
 * repository, resumes after the last recorded chunk instead of from the start, processes the failed
 * chunk again, and records every entry and every finding exactly once.
 */
class ReconciliationRestartTest extends ReconciliationTestBase {

  @Autowired JobRepository repository;
  @Autowired PlatformTransactionManager transactionManager;
  @Autowired JobOperator operator;

  @Test
  void aJobFailedMidChunkRestartsFromTheJobRepositoryAndRecordsNothingTwice() throws Exception {
    // Three payouts paid, each paid again through the negative-control proxy: six entries, three
    // duplicates, in rail-reference order a1 b1 c1 a2 b2 c2; two entries a page and a chunk.
    List<Payout> paid = List.of(paid(), paid(), paid());
    for (Payout p : paid) {
      world.submit(world.stack.unguardedProxyUrl(), p, p.tokenStamp());
    }
    CountingSource source =
        new CountingSource(
            new RailStatementSource(
                world.stack.stubUrl(),
                Duration.ofSeconds(5),
                world.stack.tokens(FencepostRole.RECONCILER),
                2));
    ReconciliationSettings settings = world.settings();
    Reconciler reconciler =
        Reconciler.create(
            world.paydb,
            world.stack.proxyUrl(),
            source,
            locks,
            world.meters,
            settings,
            world.stack.tokens(FencepostRole.RECONCILER));
    AtomicInteger written = new AtomicInteger();
    ItemWriteListener<StatementScan.Classified> crashAfterSecondChunk =
        new ItemWriteListener<>() {
          @Override
          public void afterWrite(Chunk<? extends StatementScan.Classified> chunk) {
            if (written.incrementAndGet() == 2) {
              throw new IllegalStateException("crash: chunk 2 is in paydb, not in the repository");
            }
          }
        };
    Job job =
        ReconciliationJobConfiguration.job(
            repository,
            transactionManager,
            reconciler,
            new CatchUp(
                reconciler,
                new WindowLedger(world.paydb),
                CatchUpSettings.defaults(),
                Clock.systemUTC()),
            new WindowLedger(world.paydb),
            settings,
            2,
            List.of(crashAfterSecondChunk));
    ReconciliationWindow window = world.window();
    JobParameters parameters =
        new JobParametersBuilder()
            .addString("windowFrom", window.from().toString())
            .addString("windowTo", window.to().toString())
            .addString("test", world.paydbDatabase.toString() + System.nanoTime())
            .toJobParameters();

    JobExecution failed = operator.start(job, parameters);

    assertThat(failed.getStatus()).isEqualTo(BatchStatus.FAILED);
    // Chunk 2 reached paydb before the crash: a1, b1, c1, a2 and a2's duplicate finding.
    assertThat(count("SELECT count(*) FROM reconciliation_statement_entry")).isEqualTo(4);

    JobExecution restarted = operator.start(job, parameters);

    assertThat(restarted.getStatus()).isEqualTo(BatchStatus.COMPLETED);
    assertThat(restarted.getJobInstanceId()).isEqualTo(failed.getJobInstanceId());
    // Resumed from the repository: page 1 was read once; page 2, whose chunk failed, twice.
    assertThat(source.reads).containsEntry(1, 1).containsEntry(2, 2).containsEntry(3, 1);
    assertThat(count("SELECT count(*) FROM reconciliation_statement_entry")).isEqualTo(6);
    assertThat(count("SELECT count(*) FROM reconciliation_scan_finding")).isEqualTo(3);
    assertThat(
            count(
                "SELECT count(*) FROM reconciliation_issue"
                    + " WHERE discrepancy = 'DUPLICATE_SUBMISSION'"))
        .isEqualTo(3);
    assertThat(count("SELECT count(*) FROM reconciliation_issue")).isEqualTo(3);
    Map<String, Object> run =
        world.sql.sql("SELECT status, finding_count FROM reconciliation_run").query().singleRow();
    assertThat(run).containsEntry("status", "COMPLETED").containsEntry("finding_count", 3L);
  }

  private Payout paid() {
    return world.execute(world.pending(), World.Until.POSTED);
  }

  private long count(String sql) {
    return world.sql.sql(sql).query(Long.class).single();
  }

  /** A statement source that counts how often each page is read. */
  static final class CountingSource implements StatementSource {
    final StatementSource delegate;
    final Map<Integer, Integer> reads = new ConcurrentHashMap<>();

    CountingSource(StatementSource delegate) {
      this.delegate = delegate;
    }

    @Override
    public StatementPage read(ReconciliationWindow window, int page) {
      reads.merge(page, 1, Integer::sum);
      return delegate.read(window, page);
    }

    @Override
    public String name() {
      return delegate.name();
    }
  }
}
