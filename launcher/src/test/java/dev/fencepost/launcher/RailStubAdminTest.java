package dev.fencepost.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The fault plans {@link RailStubAdmin} sends, as the stub's admin endpoint receives them (the
 * plan's shape is docs/rail.md's {@code PUT /rail/admin/faults}); a loopback HTTP server stands in
 * for the stub and answers as the stub does.
 */
class RailStubAdminTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private HttpServer stub;
  private final List<String> plans = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private volatile int status = 200;

  @BeforeEach
  void start() throws IOException {
    stub = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
    stub.createContext(
        "/rail/admin/faults",
        exchange -> {
          authorizations.add(
              String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
          plans.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(status, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    stub.start();
  }

  @AfterEach
  void stop() {
    stub.stop(0);
  }

  private RailStubAdmin admin() {
    return new RailStubAdmin(
        "http://127.0.0.1:" + stub.getAddress().getPort(), () -> "operator-token");
  }

  @Test
  void everyCallPresentsTheOperatorsToken() {
    admin().faults(Map.of("fp-1", "DECLINE"));
    admin().resetFaults();

    assertThat(authorizations).containsExactly("Bearer operator-token", "Bearer operator-token");
  }

  @Test
  void aPlanOfRatesAndOverridesIsSentAsTheStubReadsIt() {
    admin()
        .faults(Map.of("TIMEOUT_AFTER_SETTLE", 0.002, "RESET", 0.0005), Map.of("fp-1", "DECLINE"));

    JsonNode plan = JSON.readTree(plans.get(0));
    assertThat(plan.path("rates").path("TIMEOUT_AFTER_SETTLE").asDouble()).isEqualTo(0.002);
    assertThat(plan.path("rates").path("RESET").asDouble()).isEqualTo(0.0005);
    assertThat(plan.path("rates").size()).isEqualTo(2);
    assertThat(plan.path("overrides").path("fp-1").asString()).isEqualTo("DECLINE");
    assertThat(plan.path("lookupLagMillis").asInt()).isZero();
  }

  @Test
  void overridesAloneComeWithNoRates() {
    admin().faults(Map.of("fp-2", "TIMEOUT_BEFORE_SETTLE"));

    JsonNode plan = JSON.readTree(plans.get(0));
    assertThat(plan.path("rates").isObject()).isTrue();
    assertThat(plan.path("rates").size()).isZero();
    assertThat(plan.path("overrides").path("fp-2").asString()).isEqualTo("TIMEOUT_BEFORE_SETTLE");
  }

  @Test
  void aPlanTheStubRefusesIsAnError() {
    status = 400;

    assertThatThrownBy(() -> admin().faults(Map.of("DECLINE", 2.0), Map.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("fault plan refused");
  }
}
