package dev.fencepost.security.impl;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

/** Spring Security's observations are switched off; every other observation is kept. */
class SecurityObservationsTest {

  private final ObservationRegistry registry = ObservationRegistry.create();

  SecurityObservationsTest() {
    registry.observationConfig().observationHandler(context -> true);
    registry.observationConfig().observationPredicate(SecurityObservations.OFF);
  }

  @Test
  void springSecuritysFilterChainAuthenticationAndAuthorizationObservationsAreNoops() {
    for (String name :
        new String[] {
          "spring.security.filterchains",
          "spring.security.authentications",
          "spring.security.authorizations",
          "spring.security.http.secured.requests"
        }) {
      Observation observation = Observation.start(name, registry);
      assertThat(observation.isNoop()).as(name).isTrue();
      observation.stop();
    }
  }

  @Test
  void theRequestObservationAndOurOwnAreKept() {
    for (String name : new String[] {"http.server.requests", "fencepost.lock.operations"}) {
      Observation observation = Observation.start(name, registry);
      assertThat(observation.isNoop()).as(name).isFalse();
      observation.stop();
    }
  }
}
