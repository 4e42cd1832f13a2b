package dev.fencepost.railstub;

import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Behaviour of the rail stub, {@code fencepost.stub.*}. Defaults are the fast, fault-free rail
 * tests want; the {@code realistic} profile sets the A-07 latency and the 0.5% ambiguity rate.
 *
 * @param seed seed of every random decision; a decision depends only on the seed, the client
 *     reference and how many times that reference was seen, so runs repeat regardless of ordering
 * @param latency nominal latency of every request
 * @param delay extra latency added by the {@link FaultMode#DELAY} fault
 * @param hang how long the timeout faults hold a request before dropping the connection; set it
 *     above the caller's timeout so the caller gives up first
 * @param lookupLag how long after settling a movement becomes visible to the lookup
 * @param declineCode decline code the {@link FaultMode#DECLINE} fault answers with
 * @param faults fault rates and overrides in force at start-up
 * @param maxMovements the most movements the in-memory book holds, and the most distinct client
 *     references whose attempts are counted; beyond either a payment is refused with 503 {@code
 *     RAIL_BOOK_FULL} before anything moves, rather than the heap filling. {@code DELETE
 *     /rail/admin/movements} empties both
 */
@ConfigurationProperties("fencepost.stub")
public record StubProperties(
    @DefaultValue("42") long seed,
    @DefaultValue Latency latency,
    @DefaultValue("5s") Duration delay,
    @DefaultValue("30s") Duration hang,
    @DefaultValue("0s") Duration lookupLag,
    @DefaultValue("BENEFICIARY_ACCOUNT_CLOSED") String declineCode,
    @DefaultValue Faults faults,
    @DefaultValue("1000000") int maxMovements) {

  /**
   * Nominal latency.
   *
   * @param distribution FIXED (always {@code fixed}) or LOGNORMAL (A-07: median and p99)
   * @param fixed the latency when the distribution is FIXED
   * @param median median of the LOGNORMAL distribution
   * @param p99 99th percentile of the LOGNORMAL distribution
   * @param max cap on any sampled latency, so one unlucky draw cannot hold a thread for minutes
   */
  public record Latency(
      @DefaultValue("FIXED") Distribution distribution,
      @DefaultValue("0ms") Duration fixed,
      @DefaultValue("300ms") Duration median,
      @DefaultValue("3s") Duration p99,
      @DefaultValue("30s") Duration max) {}

  /** Shape of the nominal latency. */
  public enum Distribution {
    FIXED,
    LOGNORMAL
  }

  /**
   * Fault plan at start-up; {@code PUT /rail/admin/faults} replaces it at run time.
   *
   * @param rates probability of each fault mode per request; their sum is at most 1
   * @param overrides a fault mode forced for every request with this client reference
   */
  public record Faults(Map<FaultMode, Double> rates, Map<String, FaultMode> overrides) {
    public Faults {
      rates = rates == null ? Map.of() : Map.copyOf(rates);
      overrides = overrides == null ? Map.of() : Map.copyOf(overrides);
    }
  }
}
