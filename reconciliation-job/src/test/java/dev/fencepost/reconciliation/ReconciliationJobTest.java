package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencepost.testsupport.metrics.ScrapeCardinality;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.job.parameters.JobParametersBuilder;
import tools.jackson.databind.JsonNode;

/**
 * {@code reconciliationJob} on batch-support: launched and listed through {@code
 * /actuator/batchjobs}, one reconciliation run per execution, its counts in the exit description
 * and its run in paydb; a run that cannot read a source fails and says so.
 */
class ReconciliationJobTest extends ReconciliationTestBase {

  @Test
  @Tag("UC-07")
  void aHandLaunchRunsTheReconcilerOverTheGivenWindowAndIsListedFromTheJobRepository() {
    Instant from = Instant.now().minusSeconds(60);
    Instant to = Instant.now().plusSeconds(60);
    String jobs = management("/actuator/batchjobs/reconciliationJob");

    HttpResponse<String> launched =
        World.send(
            "POST", jobs, "{\"parameters\":\"windowFrom=" + from + ",windowTo=" + to + "\"}");

    assertThat(launched.statusCode()).as(launched.body()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> completedRuns(from, to) == 1L);
    // The execution's exit description is recorded once its last step has finished.
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              JsonNode listed = World.JSON.readTree(World.send("GET", jobs, null).body());
              assertThat(listed.toString()).contains("run ").contains("discrepancies");
            });
  }

  /** Completed runs of the window that a hand-launched job recorded in the app's paydb. */
  private static long completedRuns(Instant from, Instant to) {
    return JdbcRuns.of(STACK)
        .sql(
            "SELECT count(*) FROM reconciliation_run WHERE status = 'COMPLETED'"
                + " AND window_from = :from AND window_to = :to"
                + " AND triggered_by LIKE 'batch:reconciliationJob:%'")
        .param("from", java.sql.Timestamp.from(from))
        .param("to", java.sql.Timestamp.from(to))
        .query(Long.class)
        .single();
  }

  @Test
  @Tag("NFR-09")
  void noReconciliationMetricCarriesAnIdentifier() {
    java.util.UUID payoutId = java.util.UUID.randomUUID();
    World.send(
        "POST", payoutOps(payoutId) + "/cancel", "{\"operator\":\"erin\",\"reason\":\"metrics\"}");
    String scrape = World.send("GET", management("/actuator/prometheus"), null).body();

    java.util.List<String> ours =
        scrape.lines().filter(l -> l.startsWith("fencepost_reconciliation")).toList();
    assertThat(ours).isNotEmpty();
    // NFR-09: tags are closed enums; no payout id, account id, reference or token.
    assertThat(ours)
        .noneMatch(l -> l.matches(".*[0-9a-f]{8}-[0-9a-f]{4}-.*"))
        .noneMatch(l -> l.contains("acc-") || l.contains("fp-"));
    // The same check as every application's, over every fencepost_ series this one exports.
    ScrapeCardinality.assertBounded(scrape, java.util.List.of(payoutId.toString(), "erin"));
  }

  @Test
  void withoutParametersTheJobCatchesUpAndWithOnlyOneBoundItIsRefused() {
    assertThat(ReconciliationJobConfiguration.window(new JobParameters())).isNull();
    assertThatThrownBy(
            () ->
                ReconciliationJobConfiguration.window(
                    new JobParametersBuilder()
                        .addString("windowFrom", "2026-03-01T09:00:00Z")
                        .toJobParameters()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRunThatCannotReadASourceFailsAndSaysSo() {
    world.execute(world.pending(), World.Until.POSTED);
    Reconciler blind = world.reconciler(world.settings(), "http://127.0.0.1:9");

    assertThatThrownBy(() -> blind.run(world.window(), "test"))
        .isInstanceOf(SourceUnavailableException.class);

    assertThat(
            world
                .sql
                .sql("SELECT status, error IS NOT NULL FROM reconciliation_run")
                .query((rs, i) -> Map.entry(rs.getString(1), rs.getBoolean(2)))
                .single())
        .isEqualTo(Map.entry("FAILED", true));
    assertThat(events.named("reconciliation.failed")).hasSize(1);
    assertThat(events.named("reconciliation.completed")).isEmpty();
  }

  /** The application's own paydb, where a hand-launched job writes its run. */
  static final class JdbcRuns {
    static org.springframework.jdbc.core.simple.JdbcClient of(TestStack stack) {
      return org.springframework.jdbc.core.simple.JdbcClient.create(stack.appPaydb.dataSource());
    }
  }
}
