package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The guard's counters exist at zero before the first refusal. Prometheus's {@code increase()}
 * needs a sample from before an event: a counter born at 1 with the first fenced-out write would
 * show no increase, and that write would never raise FencepostFencedOutWrite (ADR 0175).
 */
@Tag("NFR-10")
class SubmissionServiceMetersTest {

  @Test
  void refusalCountersAreRegisteredAtZeroBeforeAnySubmission() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();

    // No collaborator is touched while constructing: only the meters are registered.
    new SubmissionService(null, null, null, null, null, meters);

    assertThat(
            meters.get("fencepost.fence.rejections").tag("guard", "rail-proxy").counter().count())
        .isZero();
    assertThat(
            meters
                .get("fencepost.rail.submission.duplicates")
                .tag("guard", "rail-proxy")
                .counter()
                .count())
        .isZero();
    assertThat(meters.get("fencepost.guard.rejections").counters())
        .hasSize(SubmissionService.GUARD_REJECTION_REASONS.size());
  }
}
