package dev.fencepost.experiments.harness;

import dev.fencepost.history.CheckReport;
import dev.fencepost.history.EvidenceReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One evidence report ({@code <name>.md}) built from runs, with each run's timeline copied next to
 * it as {@code <name>-<scenario>.svg}. Always written to target/evidence; also to docs/evidence
 * when {@code -Dexperiments.evidence.dir} is set (run-evidence.sh). It opens with what produced it
 * ({@link Provenance}: the commit and the command that regenerates it). Collect runs as their
 * assertions pass and write once all have ({@link EvidenceAfterAllPassed}), or write at the end of
 * a single test, after its assertions.
 */
public final class Evidence {

  private final String name;
  private final EvidenceReport report;
  private final Map<Path, String> timelines = new LinkedHashMap<>();
  private final List<String> order = new ArrayList<>();

  /**
   * @param producedBy the test classes whose runs the report shows (they name its command)
   */
  public Evidence(String name, String title, Class<?>... producedBy) {
    if (producedBy.length == 0) {
      throw new IllegalArgumentException("name the test classes that produce " + name);
    }
    this.name = name;
    this.report =
        EvidenceReport.titled(title)
            .regeneratedBy(Provenance.command(producedBy))
            .paragraph(Provenance.paragraph(producedBy));
  }

  public synchronized Evidence paragraph(String markdown) {
    report.paragraph(markdown);
    return this;
  }

  /** A scenario section: prose, then its check report and timeline. */
  public synchronized Evidence scenario(String heading, String markdown, RunResult run) {
    String svg = name + "-" + run.scenario() + ".svg";
    timelines.put(run.timeline(), svg);
    order.add(run.scenario());
    if (markdown != null && !markdown.isBlank()) {
      report.paragraph("## " + heading + "\n\n" + markdown);
      report.scenario(heading + ": checker report", run.report(), svg);
    } else {
      report.scenario(heading, run.report(), svg);
    }
    return this;
  }

  /** A negative-control matrix, one row per cell. */
  public synchronized Evidence matrix(
      String caption, Map<String, RunResult> cells, List<String> counters) {
    Map<String, CheckReport> reports = EvidenceReport.cells();
    cells.forEach((cell, run) -> reports.put(cell, run.report()));
    report.matrix(caption, reports, counters);
    return this;
  }

  /** Writes the report and its pictures (target/evidence, and docs/evidence when asked). */
  public synchronized void write() {
    writeTo(Settings.targetEvidenceDir());
    Settings.evidenceDir().ifPresent(this::writeTo);
  }

  private void writeTo(Path dir) {
    Settings.ensureDir(dir);
    report.write(dir.resolve(name + ".md"));
    try {
      for (Map.Entry<Path, String> t : timelines.entrySet()) {
        if (Files.exists(t.getKey())) {
          Files.copy(t.getKey(), dir.resolve(t.getValue()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
