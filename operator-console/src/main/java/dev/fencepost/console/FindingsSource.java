package dev.fencepost.console;

import java.time.Instant;
import java.util.List;

/**
 * Where the findings page reads and acts on reconciliation's findings (ADR 0179): the findings with
 * their lifecycle (OPEN, ACKNOWLEDGED, RESOLVED, REOPENED) and audit trail, owned by
 * reconciliation-job. The one implementation, {@link ReconciliationFindings}, calls its {@code
 * findings} endpoint with the signed-in person's token, so the service applies its transition table
 * and records the person. Nothing is thrown for a refusal: a {@link Reply} carries the service's
 * status and message for the page to show.
 */
public interface FindingsSource {

  /** One finding (an issue: one per discrepancy class and subject) as the service describes it. */
  record Finding(
      long id,
      String discrepancy,
      String severity,
      String subject,
      String payoutId,
      String accountId,
      String detail,
      String status,
      Instant firstFoundAt,
      Instant lastFoundAt,
      long timesFound,
      Instant statusChangedAt) {}

  /** One change of a finding's status: who (role and name), when and why. */
  record Event(
      String fromStatus,
      String toStatus,
      String actorRole,
      String actor,
      String reason,
      Instant at) {}

  /** One page of findings, by id; {@code nextAfterId} is null on the last page. */
  record Page(List<Finding> items, Long nextAfterId) {}

  /** One finding and its audit trail, oldest first. */
  record Detail(Finding finding, List<Event> trail) {}

  /**
   * The value, or the refusal: {@code status} is the service's HTTP status (0 when it did not
   * answer) and {@code refusal} its message and code.
   */
  record Reply<T>(T value, int status, String refusal) {

    public boolean ok() {
      return refusal == null;
    }
  }

  /** Findings of {@code status} and {@code severity} (each null for any), after {@code afterId}. */
  Reply<Page> list(String status, String severity, long afterId);

  /** Finding {@code id} with its audit trail. */
  Reply<Detail> one(long id);

  /**
   * {@code action} (acknowledge, resolve) on finding {@code id} with {@code reason} (may be null).
   */
  Reply<Finding> act(long id, String action, String reason);
}
