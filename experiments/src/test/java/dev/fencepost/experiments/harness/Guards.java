package dev.fencepost.experiments.harness;

/**
 * Which guards are on in a run (the negative controls). The proxy's two checks are its own switches
 * ({@code fencepost.proxy.fencing.*} with {@code experiment=true}, ADR 0043); the paydb fence is
 * switched off only in the experiment worker's own binding (ADR 0035, ADR 0100).
 */
public record Guards(boolean highWater, boolean uniqueness, boolean resourceFence) {

  public static final Guards ALL_ON = new Guards(true, true, true);

  public Guards withHighWater(boolean on) {
    return new Guards(on, uniqueness, resourceFence);
  }

  public Guards withUniqueness(boolean on) {
    return new Guards(highWater, on, resourceFence);
  }

  public Guards withResourceFence(boolean on) {
    return new Guards(highWater, uniqueness, on);
  }

  /** The proxy's part of this combination: one proxy process serves each. */
  ProxyGuards proxy() {
    return new ProxyGuards(highWater, uniqueness);
  }

  record ProxyGuards(boolean highWater, boolean uniqueness) {
    boolean allOn() {
      return highWater && uniqueness;
    }
  }

  /** What is off, for a table: {@code all on}, {@code all off}, or e.g. {@code high-water off}. */
  public String offSummary() {
    java.util.List<String> off = new java.util.ArrayList<>();
    if (!highWater) {
      off.add("high-water");
    }
    if (!uniqueness) {
      off.add("uniqueness");
    }
    if (!resourceFence) {
      off.add("resource fence");
    }
    if (off.isEmpty()) {
      return "all on";
    }
    return off.size() == 3 ? "all off" : String.join(", ", off) + " off";
  }

  @Override
  public String toString() {
    return "high-water "
        + (highWater ? "on" : "off")
        + ", uniqueness "
        + (uniqueness ? "on" : "off")
        + ", resource fence "
        + (resourceFence ? "on" : "off");
  }
}
