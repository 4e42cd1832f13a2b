package dev.fencepost.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A readable evidence report for docs/evidence/: the command that regenerates it at the top, then
 * prose, per-scenario check reports with their timeline pictures, and negative-control matrices
 * (one row per experiment cell, one column per counter: what got through). Markdown only;
 * deterministic for the same inputs, so a regenerated report diffs cleanly.
 */
public final class EvidenceReport {

  private final String title;
  private String command;
  private final List<String> sections = new ArrayList<>();

  private EvidenceReport(String title) {
    this.title = Objects.requireNonNull(title);
  }

  public static EvidenceReport titled(String title) {
    return new EvidenceReport(title);
  }

  /** The one command that regenerates this report, shown at its top. */
  public EvidenceReport regeneratedBy(String command) {
    this.command = Objects.requireNonNull(command);
    return this;
  }

  /** Free Markdown, as written. */
  public EvidenceReport paragraph(String markdown) {
    sections.add(markdown.strip() + "\n");
    return this;
  }

  /**
   * One scenario: its check report and, when {@code timelineFile} is not null, the picture (a path
   * relative to the report, e.g. {@code uc03-fencing-on.svg}).
   */
  public EvidenceReport scenario(String name, CheckReport report, String timelineFile) {
    StringBuilder s = new StringBuilder(report.toMarkdown(name));
    if (timelineFile != null) {
      s.append("\n![Timeline of ").append(name).append("](").append(timelineFile).append(")\n");
    }
    sections.add(s.toString());
    return this;
  }

  /**
   * A negative-control matrix: for each cell (e.g. "resource fence off"), the given counters and
   * the verdict. A cell in which a guard was switched off is expected to show what got through.
   */
  public EvidenceReport matrix(
      String caption, Map<String, CheckReport> cells, List<String> counters) {
    StringBuilder s = new StringBuilder("## ").append(caption).append("\n\n| cell |");
    for (String counter : counters) {
      s.append(" `").append(counter).append("` |");
    }
    s.append(" verdict |\n|---|");
    s.append("---:|".repeat(counters.size()));
    s.append("---|\n");
    for (Map.Entry<String, CheckReport> cell : cells.entrySet()) {
      s.append("| ").append(cell.getKey()).append(" |");
      for (String counter : counters) {
        s.append(' ').append(cell.getValue().count(counter)).append(" |");
      }
      s.append(cell.getValue().safe() ? " safe |\n" : " **violated** |\n");
    }
    sections.add(s.toString());
    return this;
  }

  public String render() {
    StringBuilder md = new StringBuilder("# ").append(title).append("\n\n");
    if (command != null) {
      md.append("Regenerate with:\n\n```\n").append(command).append("\n```\n\n");
    }
    for (String section : sections) {
      md.append(section).append('\n');
    }
    return md.toString();
  }

  public void write(Path file) {
    try {
      if (file.getParent() != null) {
        Files.createDirectories(file.getParent());
      }
      Files.writeString(file, render(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Cells in insertion order, for {@link #matrix}. */
  public static Map<String, CheckReport> cells() {
    return new LinkedHashMap<>();
  }
}
