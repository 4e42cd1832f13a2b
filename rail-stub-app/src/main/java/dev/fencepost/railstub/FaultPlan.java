package dev.fencepost.railstub;

import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fault plan in force: a rate per mode, modes forced per client reference, and the lookup lag.
 * Immutable; the admin endpoint swaps in a new plan.
 *
 * @param rates probability of each mode, each in [0, 1], summing to at most 1; the rest settles
 * @param overrides modes forced for given client references, ahead of the rates
 * @param lookupLag visibility lag of new movements in the lookup
 */
public record FaultPlan(
    Map<FaultMode, Double> rates, Map<String, FaultMode> overrides, Duration lookupLag) {

  public FaultPlan {
    if (rates == null) {
      rates = Map.of();
    }
    if (overrides == null) {
      overrides = Map.of();
    }
    if (lookupLag == null || lookupLag.isNegative()) {
      throw new InvalidFaultPlanException("lookupLag must be zero or positive");
    }
    double sum = 0;
    EnumMap<FaultMode, Double> copy = new EnumMap<>(FaultMode.class);
    for (Map.Entry<FaultMode, Double> rate : rates.entrySet()) {
      if (rate.getKey() == null || rate.getKey() == FaultMode.NONE) {
        throw new InvalidFaultPlanException("a rate needs a fault mode other than NONE");
      }
      Double value = rate.getValue();
      if (value == null || value.isNaN() || value < 0 || value > 1) {
        throw new InvalidFaultPlanException("rate of " + rate.getKey() + " must be in [0, 1]");
      }
      sum += value;
      copy.put(rate.getKey(), value);
    }
    if (sum > 1.0 + 1e-9) {
      throw new InvalidFaultPlanException("fault rates add up to " + sum + ", more than 1");
    }
    for (Map.Entry<String, FaultMode> override : overrides.entrySet()) {
      if (override.getKey() == null || override.getKey().isBlank() || override.getValue() == null) {
        throw new InvalidFaultPlanException("an override needs a client reference and a mode");
      }
      // A reference no payment can carry would never match: refused, not silently kept.
      if (!PaymentRequest.REFERENCE.matcher(override.getKey()).matches()) {
        throw new InvalidFaultPlanException(
            "an override's client reference must match " + PaymentRequest.REFERENCE.pattern());
      }
    }
    rates = Map.copyOf(copy);
    overrides = Map.copyOf(new LinkedHashMap<>(overrides));
  }

  /** The mode for one request, given a uniform draw in [0, 1). */
  FaultMode choose(String clientReference, double draw) {
    FaultMode forced = overrides.get(clientReference);
    if (forced != null) {
      return forced;
    }
    double cumulative = 0;
    for (FaultMode mode : FaultMode.values()) {
      cumulative += rates.getOrDefault(mode, 0.0);
      if (draw < cumulative) {
        return mode;
      }
    }
    return FaultMode.NONE;
  }
}
