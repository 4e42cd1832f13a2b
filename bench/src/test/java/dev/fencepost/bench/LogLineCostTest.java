package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The log-line benchmark must measure a line as the services write it, not an empty or broken one:
 * in each format it compares, the encoded event is one JSON line that carries the event's name and
 * its pairs (and, in the shipped ECS format, the service), and the logger call goes through without
 * an error. Never a timing.
 */
class LogLineCostTest {

  @ParameterizedTest
  @ValueSource(strings = {"ecs", "logstash"})
  void theEncodedLineIsOneJsonObjectWithTheEventAndItsPairs(String format) {
    LogLineCost bench = new LogLineCost();
    bench.format = format;
    bench.setUp();

    String line = new String(bench.encode(), StandardCharsets.UTF_8);

    assertThat(line).startsWith("{").endsWith("}\n").hasLineCount(1);
    assertThat(line)
        .contains("\"event\":\"payout.transition\"")
        .contains("\"payoutId\":\"55f16c72-c1fb-4314-ade1-2b09ab6ec786\"")
        .contains("\"token\":64651")
        .contains("\"role\":\"WORKER\"");
    if (format.equals("ecs")) {
      // The shipped format names the service, as a service's line does (Logstash's has no field).
      assertThat(line).contains("\"service\":{\"name\":\"payout-job\"");
    }
    bench.logLine();
  }
}
