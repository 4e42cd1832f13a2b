package dev.fencepost.testsupport.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The shared NFR-09 check, and its negative controls: each kind of unbounded tag is caught. */
@Tag("NFR-09")
class ScrapeCardinalityTest {

  private static final String CLEAN =
      """
      # HELP fencepost_guard_rejections_total Requests a guard refused
      # TYPE fencepost_guard_rejections_total counter
      fencepost_guard_rejections_total{guard="rail-proxy",reason="stale_token"} 1.0
      fencepost_lock_operations_seconds_count{backend="etcd",operation="acquire",outcome="ok"} 3
      fencepost_lock_operations_seconds_bucket{backend="etcd",le="+Inf",operation="acquire",outcome="ok"} 3
      fencepost_payout_ambiguous_past_sla 0.0
      jvm_threads_live_threads{account="acc-1"} 12.0
      """;

  @Test
  void boundedTagsPassAndOtherMetersAreNotItsBusiness() {
    assertThat(ScrapeCardinality.problems(CLEAN, List.of("acc-1"))).isEmpty();
  }

  @Test
  void negativeControlAnIdentifierAsATagValueIsCaught() {
    String scrape = "fencepost_payout_job_outcomes_total{outcome=\"acc-7\"} 1.0\n";
    assertThat(ScrapeCardinality.problems(scrape, List.of("acc-7")))
        .containsExactly(
            "fencepost_payout_job_outcomes_total: outcome=acc-7 is an identifier the test used");
  }

  @Test
  void negativeControlATokenOrAUuidIsCaughtEvenWhenTheTestDidNotNameIt() {
    String scrape =
        """
        fencepost_fence_rejections_total{guard="42"} 1.0
        fencepost_fence_rejections_total{guard="3f2b8c1e-0d6a-4c4e-9d1b-7a0e5e7b9c11"} 1.0
        """;
    assertThat(ScrapeCardinality.problems(scrape, List.of())).hasSize(2);
  }

  @Test
  void negativeControlAnUnknownTagKeyIsCaught() {
    String scrape = "fencepost_lock_revokes_total{backend=\"etcd\",key=\"payout\"} 1.0\n";
    assertThat(ScrapeCardinality.problems(scrape, List.of()))
        .singleElement()
        .asString()
        .startsWith("fencepost_lock_revokes_total: tag key key is not one of");
    assertThatThrownBy(() -> ScrapeCardinality.assertBounded(scrape, List.of()))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("NFR-09");
  }

  @Test
  void aScrapeWithoutFencepostSeriesIsAProblem() {
    assertThat(ScrapeCardinality.problems("jvm_threads_live_threads 1.0\n", List.of()))
        .containsExactly("the scrape has no fencepost_ series at all");
  }
}
