package dev.fencepost.experiments.gameday;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What one game day did and measured: the failure injected, when, when its alert fired through
 * Prometheus's API (the detection latency), which runbook steps were executed with what result, and
 * how recovery was verified.
 */
final class GameDay {

  /** One executed runbook step: what the runbook says, what ran here, what it showed. */
  record Step(String runbookSays, String executed, String outcome) {}

  private final String title;
  private final String alert;
  private final String severity;
  private final Runbook runbook;
  private final List<Step> steps = new ArrayList<>();
  private String injection;
  private Instant injectedAt;
  private Instant firedAt;
  private String recovery;

  GameDay(String title, String alert, String severity, Runbook runbook) {
    this.title = title;
    this.alert = alert;
    this.severity = severity;
    this.runbook = runbook;
  }

  /** The failure is injected now. */
  GameDay injected(String what) {
    this.injection = what;
    this.injectedAt = Instant.now();
    return this;
  }

  /** The failure was injected at {@code at} (a budget that ran out at a known time). */
  GameDay injected(String what, Instant at) {
    this.injection = what;
    this.injectedAt = at;
    return this;
  }

  void fired(Instant at) {
    this.firedAt = at;
  }

  GameDay step(String runbookSays, String executed, String outcome) {
    steps.add(new Step(runbookSays, executed, outcome));
    return this;
  }

  void recovered(String how) {
    this.recovery = how;
  }

  String title() {
    return title;
  }

  String alert() {
    return alert;
  }

  String severity() {
    return severity;
  }

  Runbook runbook() {
    return runbook;
  }

  String injection() {
    return injection;
  }

  Instant injectedAt() {
    return injectedAt;
  }

  Duration latency() {
    return Duration.between(injectedAt, firedAt);
  }

  List<Step> steps() {
    return List.copyOf(steps);
  }

  String recovery() {
    return recovery;
  }

  boolean complete() {
    return injectedAt != null && firedAt != null && recovery != null && !steps.isEmpty();
  }
}
