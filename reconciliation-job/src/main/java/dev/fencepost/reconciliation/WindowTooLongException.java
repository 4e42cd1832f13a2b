package dev.fencepost.reconciliation;

import java.time.Duration;

/**
 * A reconciliation window longer than {@code fencepost.reconciliation.max-window} (ADR 0168): the
 * run is refused before it starts, and nothing is read or recorded. Reconcile a long period as
 * several windows.
 */
public final class WindowTooLongException extends IllegalArgumentException {

  public WindowTooLongException(Duration length, Duration max) {
    super(
        "the window is "
            + length
            + " long, longer than fencepost.reconciliation.max-window ("
            + max
            + "); reconcile it as several windows");
  }
}
