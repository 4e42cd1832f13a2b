package dev.fencepost.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CostMeterTest {

  private static final String SCRAPE =
      """
      # HELP http_server_requests_seconds
      # TYPE http_server_requests_seconds summary
      http_server_requests_seconds_count{error="none",exception="none",method="POST",outcome="SUCCESS",status="200",uri="/v1/locks/{key}/acquire"} 120.0
      http_server_requests_seconds_sum{error="none",exception="none",method="POST",outcome="SUCCESS",status="200",uri="/v1/locks/{key}/acquire"} 0.5
      http_server_requests_seconds_count{error="none",exception="none",method="POST",outcome="CLIENT_ERROR",status="409",uri="/v1/locks/{key}/acquire"} 3.0
      http_server_requests_seconds_count{error="none",exception="none",method="POST",outcome="SUCCESS",status="204",uri="/v1/locks/{key}/release"} 118.0
      http_server_requests_seconds_count{error="none",exception="none",method="GET",outcome="SUCCESS",status="200",uri="/actuator/prometheus"} 7.0
      fencepost_lock_operations_seconds_count{operation="acquire"} 123.0
      """;

  @Test
  void requestsAreCountedByMethodAndUriTemplateEvenWhenTheTemplateHoldsBraces() {
    assertThat(CostMeter.served(SCRAPE))
        .containsExactly(
            java.util.Map.entry("POST /v1/locks/{key}/acquire", 123L),
            java.util.Map.entry("POST /v1/locks/{key}/release", 118L));
  }

  @Test
  void anEmptyOrForeignScrapeCountsNothing() {
    assertThat(CostMeter.served("")).isEmpty();
    assertThat(CostMeter.served("jvm_threads_live_threads 42.0\n")).isEmpty();
  }
}
