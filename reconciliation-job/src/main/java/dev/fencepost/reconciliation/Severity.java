package dev.fencepost.reconciliation;

/**
 * How a finding is escalated (NFR-10): symptoms of lost or invented money page, causes that a
 * person works through in hours are tickets. Used as a metric tag (bounded, NFR-09).
 */
public enum Severity {
  PAGE,
  TICKET
}
