package dev.fencepost.experiments.gameday;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How the dashboards' check reads a metric name out of PromQL. */
class DashboardQueriesTest {

  @Test
  void keepsMetricNamesAndDropsFunctionsLabelsGroupingAndNumbers() {
    assertThat(
            DashboardQueries.metricNames(
                "sum by (outcome) (rate(fencepost_lock_client_acquire_seconds_count{outcome=~\"a|b\"}[5m]))"
                    + " / 0.001 * 1e3"))
        .containsExactly("fencepost_lock_client_acquire_seconds_count");
  }

  @Test
  void keepsRecordingRuleNamesAndBothSidesOfABinaryOperation() {
    assertThat(
            DashboardQueries.metricNames(
                "clamp_min(1 - (fencepost:lock_acquire_errors:ratio_rate28d / 0.001), 0)"
                    + " and on (instance) up"))
        .containsExactlyInAnyOrder("fencepost:lock_acquire_errors:ratio_rate28d", "up");
  }

  @Test
  void ignoresGrafanaVariablesAndLabelValuesThatLookLikeNames() {
    assertThat(
            DashboardQueries.metricNames(
                "max by (state) (fencepost_payouts{state=\"RAIL_AMBIGUOUS\", instance=~\"$instance\"})"
                    + "[$__rate_interval:]"))
        .containsExactly("fencepost_payouts");
  }

  @Test
  void everyShippedDashboardHasQueriesThatReadAMetric() {
    assertThat(DashboardQueries.all())
        .isNotEmpty()
        .allSatisfy(
            q -> assertThat(DashboardQueries.metricNames(q.expr())).as(q.expr()).isNotEmpty());
  }
}
