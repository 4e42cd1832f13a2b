package dev.fencepost.railproxy;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of the proxy's two guards are on (FR-29, ADR 0043). Switching one off is only for the
 * negative control that proves the guard matters, so it needs the experiment flag as well, is a
 * loud WARN event {@code fencing.disabled} at start-up, and shows as a 0 on {@code
 * fencepost.fencing.enabled}.
 */
public final class FencingSwitches {

  private static final Logger log = LoggerFactory.getLogger(FencingSwitches.class);

  private final boolean highWaterEnabled;
  private final boolean uniquenessEnabled;

  private FencingSwitches(boolean highWaterEnabled, boolean uniquenessEnabled) {
    this.highWaterEnabled = highWaterEnabled;
    this.uniquenessEnabled = uniquenessEnabled;
  }

  /** Both guards on: normal operation. */
  public static FencingSwitches allOn() {
    return new FencingSwitches(true, true);
  }

  /**
   * Validates the configuration and announces any guard that is off.
   *
   * @throws IllegalStateException a guard is off without the experiment flag
   */
  public static FencingSwitches from(ProxyProperties.Fencing fencing, MeterRegistry meters) {
    boolean anyOff = !fencing.highWaterEnabled() || !fencing.uniquenessEnabled();
    if (anyOff && !fencing.experiment()) {
      throw new IllegalStateException(
          "a rail-proxy fencing guard is switched off without"
              + " fencepost.proxy.fencing.experiment=true; guards may only be disabled for the"
              + " negative-control experiment (FR-29, ADR 0043)");
    }
    FencingSwitches switches =
        new FencingSwitches(fencing.highWaterEnabled(), fencing.uniquenessEnabled());
    announce("high-water", fencing.highWaterEnabled());
    announce("uniqueness", fencing.uniquenessEnabled());
    Gauge.builder("fencepost.fencing.enabled", () -> switches.highWaterEnabled ? 1 : 0)
        .tag("guard", "rail-proxy")
        .tag("check", "high-water")
        .description("1 while the proxy's high-water guard is on")
        .register(meters);
    Gauge.builder("fencepost.fencing.enabled", () -> switches.uniquenessEnabled ? 1 : 0)
        .tag("guard", "rail-proxy")
        .tag("check", "uniqueness")
        .description("1 while the proxy's per-payout uniqueness guard is on")
        .register(meters);
    return switches;
  }

  private static void announce(String check, boolean enabled) {
    if (enabled) {
      return;
    }
    log.atWarn()
        .addKeyValue("event", "fencing.disabled")
        .addKeyValue("guard", "rail-proxy")
        .addKeyValue("check", check)
        .log(
            "FENCING DISABLED: the rail proxy's "
                + check
                + " guard is off for an experiment; duplicate payments are possible");
  }

  public boolean highWaterEnabled() {
    return highWaterEnabled;
  }

  public boolean uniquenessEnabled() {
    return uniquenessEnabled;
  }
}
