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
  private Instant pendingAt;
  private String notAwaited;

  GameDay(String title, String alert, String severity, Runbook runbook) {
    this.title = title;
    this.alert = alert;
    this.severity = severity;
    this.runbook = runbook;
  }

  /**
   * A procedure a runbook describes that no alert announces (a restore): executed and verified,
   * with no detection latency to measure.
   */
  static GameDay procedure(String title, Runbook runbook) {
    return new GameDay(title, null, null, runbook);
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

  /**
   * The alert's expression became true at {@code at} (Prometheus reported it pending), and firing
   * would take {@code why} longer than a game day waits (a {@code for:} of an hour): the latency
   * reported is the condition's, and the report says firing was not awaited.
   */
  void pendingNotAwaited(Instant at, String why) {
    this.pendingAt = at;
    this.notAwaited = why;
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

  /** Injection to firing; empty for a procedure, or an alert whose firing was not awaited. */
  java.util.Optional<Duration> latency() {
    return firedAt == null
        ? java.util.Optional.empty()
        : java.util.Optional.of(Duration.between(injectedAt, firedAt));
  }

  /** Injection to the expression being true (pending), when firing was not awaited. */
  java.util.Optional<Duration> pendingLatency() {
    return pendingAt == null
        ? java.util.Optional.empty()
        : java.util.Optional.of(Duration.between(injectedAt, pendingAt));
  }

  /** Why firing was not awaited, or null. */
  String notAwaited() {
    return notAwaited;
  }

  boolean isProcedure() {
    return alert == null;
  }

  List<Step> steps() {
    return List.copyOf(steps);
  }

  String recovery() {
    return recovery;
  }

  boolean complete() {
    boolean detected = isProcedure() || firedAt != null || pendingAt != null;
    return injectedAt != null && detected && recovery != null && !steps.isEmpty();
  }
}
