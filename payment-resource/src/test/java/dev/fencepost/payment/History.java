package dev.fencepost.payment;

import java.util.List;

/** Checks over recorded histories of tokens or fences. */
final class History {

  private History() {}

  /** True when every value is at least the one before it (INV-01's order, INV-05's fence). */
  static boolean nonDecreasing(List<Long> values) {
    for (int i = 1; i < values.size(); i++) {
      if (values.get(i) < values.get(i - 1)) {
        return false;
      }
    }
    return true;
  }
}
