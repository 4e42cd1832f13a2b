package dev.fencepost.experiments.gameday;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.EvidenceAfterAllPassed;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.LockBackend;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.launcher.process.JavaProcess;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Grafana dashboards ({@code ops/grafana/}) against a live scrape (NFR-10, ADR 0180): every
 * metric name a panel's query reads must be one the game days' Prometheus scraped from the running
 * applications or recorded from the rules. In the test command; its counts go into
 * docs/evidence/game-days.md.
 */
@Tag("NFR-10")
class GameDaysDashboardsIT extends GameDays {

  @RegisterExtension
  static final EvidenceAfterAllPassed EVIDENCE =
      GameDayRegistry.evidence(GameDaysDashboardsIT.class);

  @Test
  void everyDashboardQueryNamesOnlyMetricsTheApplicationsExport() {
    // The etcd backend's own meters are exported only by a lock server on etcd.
    JavaProcess onEtcd = obs.watch("lock-server", stack.lockServer(LockBackend.ETCD));
    watchTheServices(LockBackend.POSTGRES);
    // The last run's findings are published once a run has completed: a worker and one run.
    try (ExperimentRun run =
            ExperimentRun.start(
                "gameday-dashboards", "Game day: one reconciliation run", Guards.ALL_ON);
        Reconciler reconciler = Reconciler.start(run, List.of())) {
      run.payout("gddash", FUNDING, AMOUNT);
      Worker w = run.worker("w1").loop().served().arg(FAST_GAUGES).start();
      obs.watch("payout-job", w.process());
      obs.watch("reconciliation-job", reconciler.process());
      HttpResponse<String> launched = reconciler.launch("");
      assertThat(launched.statusCode()).as(launched.body()).isBetween(200, 202);
      Awaitility.await("a completed reconciliation run")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  !Sql.rows(
                          run.paydb(),
                          "SELECT id FROM reconciliation_run WHERE status = 'COMPLETED'")
                      .isEmpty());
      dashboardsRead(onEtcd);
      run.terminate(w, "checked");
      obs.forget(w.process());
      obs.forget(reconciler.process());
    }
  }

  void dashboardsRead(JavaProcess onEtcd) {
    List<DashboardQueries.Query> queries = DashboardQueries.all();
    Set<String> used = new TreeSet<>();
    queries.forEach(q -> used.addAll(DashboardQueries.metricNames(q.expr())));
    // Until the etcd server's first samples and a recording rule's evaluation over them are in.
    Set<String> seen = new TreeSet<>();
    try {
      Awaitility.await("every dashboard metric scraped or recorded")
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                seen.clear();
                seen.addAll(obs.prometheus().metricNames());
                return seen.containsAll(used);
              });
    } catch (ConditionTimeoutException e) {
      // reported below, name by name
    }
    assertThat(queries).hasSizeGreaterThan(20);
    Map<String, Set<String>> missing = new TreeMap<>();
    for (DashboardQueries.Query q : queries) {
      Set<String> names = DashboardQueries.metricNames(q.expr());
      assertThat(names)
          .as("%s / %s reads a metric: %s", q.dashboard(), q.panel(), q.expr())
          .isNotEmpty();
      for (String name : names) {
        if (!seen.contains(name)) {
          missing
              .computeIfAbsent(name, n -> new TreeSet<>())
              .add(q.dashboard() + " / " + q.panel());
        }
      }
    }
    assertThat(missing)
        .as("names in dashboards that no application exported (%s seen)", seen.size())
        .isEmpty();
    GameDayRegistry.dashboardsChecked(queries.size(), seen.size());
    obs.forget(onEtcd);
  }
}
