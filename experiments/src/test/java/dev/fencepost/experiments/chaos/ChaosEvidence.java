package dev.fencepost.experiments.chaos;

import dev.fencepost.experiments.chaos.ChaosRun.ChaosFigures;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Provenance;
import dev.fencepost.experiments.harness.RunResult;
import dev.fencepost.experiments.harness.Settings;
import dev.fencepost.history.EvidenceReport;
import dev.fencepost.history.Records;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * docs/evidence/chaos.md (long tier) or chaos-ci.md, and chaos-etcd.md or chaos-etcd-ci.md for the
 * run on etcd ({@link ChaosRun#evidenceName}): the figures, a picture of the backlog draining with
 * the faults marked, the fault timeline as a table, and the check report. The checker's per-worker
 * timeline of a run this size is megabytes; it stays in the run directory.
 */
final class ChaosEvidence {

  static final Set<String> SETTLED = Set.of("POSTED", "FAILED", "ABANDONED", "RAIL_AMBIGUOUS");

  private ChaosEvidence() {}

  static void write(
      String name,
      Class<?> test,
      RunResult result,
      ChaosFigures figures,
      List<ChecksBite.Bite> bites) {
    String svgName = name + "-progress.svg";
    boolean etcd = figures.faults().containsKey(ChaosDriver.Fault.ETCD_LEADER_KILL);
    EvidenceReport report =
        EvidenceReport.titled("Chaos run, " + figures.tier() + " tier, on " + figures.backend())
            .regeneratedBy(Provenance.command(test))
            .paragraph(Provenance.paragraph(test))
            .paragraph(
                "Real processes only: looping payout workers (this module's exec jar), a lock"
                    + (etcd
                        ? " server on the etcd backend, a "
                            + ChaosRun.ETCD_MEMBERS
                            + "-member etcd cluster of the run's own (Debian's etcd binary),"
                            + " whose leader the driver SIGKILLs while the workers acquire and"
                            + " renew (found from each member's status: its leader id is its"
                            + " member id), restarting it on its ports and data directory after a"
                            + " seeded 1-5 s so that it rejoins, and whose members it freezes"
                            + " (SIGSTOP past two election timeouts, then SIGCONT); the lock server"
                            + " itself"
                        : " server on the PostgreSQL backend")
                    + " that the driver SIGKILLs and restarts on"
                    + " the same port, the rail proxy with every guard on, the rail stub with "
                    + ChaosRun.ambiguityPercent()
                    + " ambiguity, and one embedded PostgreSQL (lockdb, proxydb, batchdb, paydb)"
                    + " with synchronous commits that the driver stops and starts, and crashes"
                    + " (every PostgreSQL process SIGKILLed) and starts again. A seeded driver (ADR"
                    + " 0108) freezes"
                    + " workers past their "
                    + ExperimentRun.LOCK_TTL
                    + " lease, kills and replaces them, and restarts the lock server and"
                    + " PostgreSQL; when its window ends, frozen workers are thawed and the run"
                    + " waits until every payout is terminal, RAIL_AMBIGUOUS, or PENDING behind an"
                    + " ambiguous payout of its account. Then the history is extracted and checked."
                    + " Tests: `ChaosRunIT` (CI tier, "
                    + ChaosRun.CI.payouts()
                    + " payouts, writes chaos-ci.md and chaos-etcd-ci.md) and `ChaosRunLongIT` ("
                    + ChaosRun.LONG.payouts()
                    + " payouts, only with `-Dexperiments.long=true`, writes chaos.md and"
                    + " chaos-etcd.md), each once per lock backend with the same code and"
                    + " assertions. A seed replays the fault sequence:"
                    + " `-Dexperiments.chaos.seed=<seed>`.")
            .paragraph("## Figures\n\n" + figures.markdown())
            .paragraph(
                "## Negative control\n\nThe check below would have caught a breach: each"
                    + " mutation of this run's own recorded history (a fresh read, never written"
                    + " back) is counted by its counter (ADR 0171). The grant mutations act on"
                    + (etcd ? " the grants read from etcd's watch" : " lockdb's `lock_event`")
                    + ".\n\n"
                    + ChecksBite.markdown(bites))
            .paragraph(
                "## Progress\n\nPayouts settled (terminal or RAIL_AMBIGUOUS) over time, from"
                    + " paydb's audit; each fault a vertical line.\n\n![Progress]("
                    + svgName
                    + ")\n")
            .paragraph("## Fault timeline\n\n" + eventTable(result.history().events))
            .scenario("The check: every safety counter must be 0", result.report(), null);
    String svg = progressSvg(result);
    writeTo(Settings.targetEvidenceDir(), name, report, svgName, svg);
    Settings.evidenceDir().ifPresent(dir -> writeTo(dir, name, report, svgName, svg));
  }

  private static void writeTo(
      Path dir, String name, EvidenceReport report, String svgName, String svg) {
    report.write(dir.resolve(name + ".md"));
    try {
      Files.writeString(dir.resolve(svgName), svg, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String eventTable(List<Records.Event> events) {
    List<Records.Event> ordered =
        events.stream()
            .filter(e -> e.nanos() != null)
            .sorted(Comparator.comparing(Records.Event::nanos))
            .toList();
    if (ordered.isEmpty()) {
      return "(no events)\n";
    }
    long t0 = ordered.get(0).nanos();
    StringBuilder md =
        new StringBuilder("| t (s) | event | worker | detail |\n|---:|---|---|---|\n");
    for (Records.Event e : ordered) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %.1f | %s | %s | %s |%n",
              (e.nanos() - t0) / 1e9,
              e.kind(),
              e.worker() == null ? "" : e.worker(),
              e.detail() == null ? "" : e.detail().replace("|", "\\|")));
    }
    return md.toString();
  }

  /** Cumulative settled payouts against time, with the faults as vertical lines. */
  static String progressSvg(RunResult result) {
    List<Instant> settled =
        result.history().transitions.stream()
            .filter(t -> t.at() != null && SETTLED.contains(t.to()))
            .map(Records.Transition::at)
            .sorted()
            .toList();
    List<Records.Event> events =
        result.history().events.stream()
            .filter(e -> e.at() != null)
            .sorted(Comparator.comparing(Records.Event::at))
            .toList();
    Instant start = events.isEmpty() ? Instant.EPOCH : events.get(0).at();
    Instant end = start.plusSeconds(1);
    for (Instant i : settled) {
      end = i.isAfter(end) ? i : end;
    }
    for (Records.Event e : events) {
      end = e.at().isAfter(end) ? e.at() : end;
    }
    double span = Math.max(1, end.toEpochMilli() - start.toEpochMilli()) / 1000.0;
    int w = 900;
    int h = 360;
    int left = 50;
    int right = 20;
    int top = 20;
    int bottom = 40;
    double plotW = w - left - right;
    double plotH = h - top - bottom;
    int total = Math.max(1, settled.size());
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"11\">%n",
            w,
            h));
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    svg.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n"
                + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
            left,
            top,
            left,
            h - bottom,
            left,
            h - bottom,
            w - right,
            h - bottom));
    Map<String, String> colours =
        Map.of(
            "SIGSTOP", "#1f77b4",
            "SIGKILL", "#d62728",
            "RESTART", "#9467bd",
            "CRASH", "#9467bd",
            "ETCD_LEADER_KILL", "#ff7f0e",
            "ETCD_PAUSE", "#8c564b",
            "QUIESCE", "#2ca02c");
    for (Records.Event e : events) {
      String colour = colours.get(e.kind());
      if (colour == null) {
        continue;
      }
      double x = left + plotW * secondsBetween(start, e.at()) / span;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\""
                  + " stroke-dasharray=\"3,2\"><title>%s %s</title></line>%n",
              x,
              top,
              x,
              h - bottom,
              colour,
              e.kind(),
              escape(e.detail())));
    }
    StringBuilder path = new StringBuilder();
    path.append(String.format(Locale.ROOT, "M%d,%d", left, h - bottom));
    for (int i = 0; i < settled.size(); i++) {
      double x = left + plotW * secondsBetween(start, settled.get(i)) / span;
      double y = (h - bottom) - plotH * (i + 1) / total;
      path.append(String.format(Locale.ROOT, " L%.1f,%.1f", x, y));
    }
    svg.append("<path d=\"")
        .append(path)
        .append("\" fill=\"none\" stroke=\"black\" stroke-width=\"1.5\"/>\n");
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\">0 s</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f s"
                + "</text>%n<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d</text>"
                + "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>%n",
            left,
            h - bottom + 15,
            w - right,
            h - bottom + 15,
            span,
            left - 4,
            top + 10,
            settled.size(),
            left - 4,
            h - bottom));
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\">settled payouts (black); faults: SIGSTOP blue, SIGKILL red,"
                + " restart or crash (lock server or PostgreSQL) purple, etcd leader kill orange,"
                + " etcd member frozen brown; end of faults green</text>%n",
            left,
            h - 8));
    svg.append("</svg>\n");
    return svg.toString();
  }

  private static double secondsBetween(Instant a, Instant b) {
    return (b.toEpochMilli() - a.toEpochMilli()) / 1000.0;
  }

  private static String escape(String s) {
    return s == null ? "" : s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
