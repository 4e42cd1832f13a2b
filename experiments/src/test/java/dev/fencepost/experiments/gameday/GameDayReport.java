package dev.fencepost.experiments.gameday;

import dev.fencepost.experiments.harness.Evidence;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** docs/evidence/game-days.md from the game days that ran, every one of which passed. */
final class GameDayReport {

  private GameDayReport() {}

  static void write(
      List<GameDay> days,
      boolean longTier,
      int dashboardQueries,
      int metricNames,
      List<Class<?>> producedBy) {
    StringBuilder table =
        new StringBuilder(
            "| alert | severity | failure injected | detection latency | runbook | steps executed"
                + " | recovery |\n|---|---|---|---|---|---|---|\n");
    for (GameDay d : days) {
      table
          .append("| ")
          .append(d.isProcedure() ? "none (a procedure)" : d.alert())
          .append(" | ")
          .append(d.isProcedure() ? "" : d.severity())
          .append(" | ")
          .append(cell(d.injection()))
          .append(" | ")
          .append(cell(latency(d)))
          .append(" | [")
          .append(d.runbook().name())
          .append("](../../")
          .append(d.runbook().path())
          .append(") | ")
          .append(d.steps().size())
          .append(" | ")
          .append(cell(d.recovery()))
          .append(" |\n");
    }
    Evidence evidence =
        new Evidence(
                "game-days",
                "Game days: failures injected on the local platform, detected by Prometheus",
                producedBy.toArray(Class<?>[]::new))
            .paragraph(
                "Each game day runs the platform's real processes (lock server, rail proxy, rail"
                    + " stub, payout workers, reconciliation job) with a real Prometheus scraping every"
                    + " management port"
                    + " over HTTPS and evaluating the shipped rule file"
                    + " (`ops/prometheus/fencepost-rules.yaml`). It injects one failure, measures"
                    + " the time from the injection to the alert firing as Prometheus's alerts API"
                    + " reports it (polled every 250 ms; for an alert already firing when its game"
                    + " day looks, its pending start plus its `for:`, as Prometheus reports them),"
                    + " then executes the alert's runbook: every"
                    + " query, statement and endpoint below is checked to be written in the"
                    + " runbook, and run against the real processes and databases (cluster actions"
                    + " such as `kubectl scale` become the local equivalent, named as such)."
                    + " Prometheus scraped and evaluated every "
                    + Observatory.INTERVAL.toSeconds()
                    + " s here; a cluster scraping every 30 s adds up to about 30 s per scrape and"
                    + " evaluation to each latency. A latency includes the alert's own `for:`"
                    + " duration. An alert whose `for:` is longer than a game day waits is"
                    + " reported with the time until Prometheus evaluated its expression true"
                    + " (pending), and says so; a procedure no alert announces (a restore) has no"
                    + " latency.")
            .paragraph(
                (longTier
                        ? "This is the whole set (the long tier)."
                        : "This is the fast subset the test command runs; the whole set is the"
                            + " long tier (`./fencepost game-days`).")
                    + " The dashboards (`ops/grafana/`) were checked in the same run: their "
                    + dashboardQueries
                    + " queries name only metrics among the "
                    + metricNames
                    + " names this Prometheus had scraped or recorded.")
            .paragraph("## Summary\n\n" + table.toString().strip());
    for (GameDay d : days) {
      StringBuilder steps =
          new StringBuilder("| runbook says | executed here | outcome |\n|---|---|---|\n");
      for (GameDay.Step s : d.steps()) {
        steps
            .append("| ")
            .append(code(s.runbookSays()))
            .append(" | ")
            .append(cell(s.executed()))
            .append(" | ")
            .append(cell(s.outcome()))
            .append(" |\n");
      }
      String detected =
          d.isProcedure()
              ? "A procedure, no alert"
              : "Alert `" + d.alert() + "` (" + d.severity() + ")";
      String latency =
          d.isProcedure()
              ? ""
              : d.latency().isPresent()
                  ? " Fired after **" + seconds(d.latency().get()) + "**."
                  : " Its expression was true (pending) after **"
                      + seconds(d.pendingLatency().orElseThrow())
                      + "**; "
                      + d.notAwaited()
                      + ".";
      evidence.paragraph(
          "## "
              + d.title()
              + "\n\n"
              + detected
              + ", runbook [`"
              + d.runbook().path()
              + "`](../../"
              + d.runbook().path()
              + "). Injected: "
              + d.injection()
              + "."
              + latency
              + "\n\n"
              + steps.toString().strip()
              + "\n\nRecovery: "
              + d.recovery());
    }
    evidence.write();
  }

  private static String latency(GameDay d) {
    if (d.isProcedure()) {
      return "n/a (no alert)";
    }
    if (d.latency().isPresent()) {
      return seconds(d.latency().get());
    }
    return "pending after " + seconds(d.pendingLatency().orElseThrow()) + "; firing not awaited";
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  private static String cell(String s) {
    return s == null ? "" : s.replace("|", "\\|").replace("\n", " ");
  }

  private static String code(String s) {
    return "`" + cell(s).replace("`", "'") + "`";
  }
}
