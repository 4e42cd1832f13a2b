package dev.fencepost.security.impl;

import io.micrometer.observation.ObservationPredicate;

/**
 * Which observations the services keep: none of Spring Security's own ({@code spring.security.*}).
 */
final class SecurityObservations {

  /** Refuses every observation Spring Security names, keeps all others. */
  static final ObservationPredicate OFF = (name, context) -> !name.startsWith("spring.security.");

  private SecurityObservations() {}
}
