package dev.fencepost.railproxy;

import static dev.fencepost.testsupport.http.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.railstub.RailStubApplication;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.generate.Generated;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The proxy in front of the real, non-idempotent rail stub with every fault mode switched on: 400
 * payouts in the test command and a thousand in the long tier, with concurrent out-of-order tokens
 * and resubmissions mixed in. Whatever the rail does, no client reference ever moves money twice
 * (INV-02), and every ambiguous row agrees with the rail's ground truth once looked up (UC-05).
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    useMainMethod = SpringBootTest.UseMainMethod.ALWAYS)
@Tag("INV-02")
@Tag("UC-05")
class AgainstTheRailStubTest {

  private static final int PAYOUTS = Generated.cases(400, 1_000);
  private static final int ACCOUNTS = 50;

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  static final ConfigurableApplicationContext stub = startStub();

  @LocalServerPort int port;

  @DynamicPropertySource
  static void wire(DynamicPropertyRegistry registry) {
    ProxyUnderTest.register(registry, proxydb);
    registry.add("fencepost.rail.base-url", () -> "http://127.0.0.1:" + stubPort());
    registry.add("fencepost.rail.timeout", () -> "500ms");
  }

  /** The stub app, in-process on a random port, started as its main starts it. */
  private static ConfigurableApplicationContext startStub() {
    return RailStubApplication.application()
        .run(
            "--server.port=0",
            "--management.server.port=0",
            "--spring.security.oauth2.resourceserver.jwt.jwk-set-uri="
                + TestIdentities.ISSUER.jwkSetUri(),
            "--logging.structured.format.console=",
            "--fencepost.stub.seed=2026",
            "--fencepost.stub.hang=1500ms",
            "--fencepost.stub.delay=50ms",
            "--fencepost.stub.faults.rates.DECLINE=0.05",
            "--fencepost.stub.faults.rates.DELAY=0.02",
            "--fencepost.stub.faults.rates.TIMEOUT_BEFORE_SETTLE=0.02",
            "--fencepost.stub.faults.rates.TIMEOUT_AFTER_SETTLE=0.03",
            "--fencepost.stub.faults.rates.ERROR_AFTER_SETTLE=0.03",
            "--fencepost.stub.faults.rates.RESET=0.02");
  }

  private static int stubPort() {
    return Integer.parseInt(stub.getEnvironment().getRequiredProperty("local.server.port"));
  }

  @AfterAll
  static void stopStub() {
    stub.close();
  }

  @Test
  void hundredsOfPayoutsThroughAFaultyRailNeverMoveMoneyTwice() throws Exception {
    ProxyHttp proxy = new ProxyHttp(port);
    ProxyHttp rail = ProxyHttp.as(stubPort(), FencepostRole.OPERATOR);
    Map<String, Integer> statusCounts = new ConcurrentHashMap<>();
    ExecutorService workers = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < PAYOUTS; i++) {
        int n = i;
        done.add(
            workers.submit(
                () -> {
                  String account = "acc-e2e-" + (n % ACCOUNTS);
                  long token = 10 + n / ACCOUNTS; // grows per account; workers overtake each other
                  String payout = "po-e2e-" + n;
                  tally(statusCounts, proxy.submit(payout, account, token));
                  if (n % 10 == 0) {
                    // A worker retrying, or a second worker with a newer grant: never a 2nd
                    // payment.
                    tally(statusCounts, proxy.submit(payout, account, token + 1_000));
                  }
                  if (n % 20 == 7) {
                    // A holder paused since before the first grant: its token is long stale.
                    tally(statusCounts, proxy.submit("po-e2e-stale-" + n, account, 1));
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      workers.shutdownNow();
    }

    // No 5xx, ever; only outcomes and the two refusals.
    assertThat(statusCounts.keySet()).allMatch(k -> k.startsWith("200:") || k.startsWith("409:"));

    JsonNode truth = json(rail.get("/rail/admin/movements"));
    Map<String, List<JsonNode>> movementsByReference = new HashMap<>();
    truth
        .get("movements")
        .forEach(
            m ->
                movementsByReference
                    .computeIfAbsent(m.get("clientReference").asString(), k -> new ArrayList<>())
                    .add(m));
    assertThat(movementsByReference.values()).allSatisfy(list -> assertThat(list).hasSize(1));

    List<Map<String, Object>> rows =
        new JdbcTemplate(proxydb.dataSource())
            .queryForList("SELECT client_reference, outcome, rail_reference FROM rail_submission");
    Map<String, Long> outcomes =
        rows.stream()
            .collect(
                Collectors.groupingBy(
                    r -> String.valueOf(r.get("outcome")), Collectors.counting()));
    int ambiguousSettled = 0;
    int ambiguousAbsent = 0;
    for (Map<String, Object> row : rows) {
      String cref = (String) row.get("client_reference");
      List<JsonNode> moved = movementsByReference.getOrDefault(cref, List.of());
      switch ((String) row.get("outcome")) {
        case "ACKED" -> {
          assertThat(moved).as(cref).hasSize(1);
          assertThat(moved.get(0).get("railReference").asString())
              .isEqualTo(row.get("rail_reference"));
        }
        case "REJECTED" -> assertThat(moved).as(cref).isEmpty();
        case "TIMEOUT" -> {
          // Resolution by evidence: the read-only lookup through the proxy agrees with the truth.
          JsonNode lookup = json(proxy.get("/v1/rail/payments?clientReference=" + cref));
          assertThat(lookup.get("movements").size()).as(cref).isEqualTo(moved.size());
          if (moved.isEmpty()) {
            ambiguousAbsent++;
          } else {
            ambiguousSettled++;
          }
        }
        default -> throw new AssertionError("unresolved row for " + cref + ": " + row);
      }
    }
    // Every movement belongs to a recorded submission: nothing reached the rail unrecorded.
    assertThat(
            rows.stream().map(r -> (String) r.get("client_reference")).collect(Collectors.toSet()))
        .containsAll(movementsByReference.keySet());
    // Both kinds of ambiguity really happened, so the check above was exercised.
    assertThat(ambiguousSettled).isPositive();
    assertThat(ambiguousAbsent).isPositive();
    assertThat(outcomes.get("ACKED")).isGreaterThan(PAYOUTS / 2);
    assertThat(outcomes.get("REJECTED")).isPositive();
    assertThat(statusCounts).containsKey("409:DUPLICATE_SUBMISSION");
    assertThat(statusCounts).containsEntry("409:STALE_TOKEN", PAYOUTS / 20);
    assertThat(movementsByReference.keySet()).noneMatch(cref -> cref.contains("stale"));

    System.out.printf(
        "rail stub run: statuses=%s outcomes=%s movements=%d ambiguousSettled=%d ambiguousAbsent=%d%n",
        new java.util.TreeMap<>(statusCounts),
        outcomes,
        truth.get("count").asInt(),
        ambiguousSettled,
        ambiguousAbsent);
  }

  private static void tally(Map<String, Integer> counts, HttpResponse<String> response) {
    String key =
        response.statusCode() == 200
            ? "200:" + json(response).get("outcome").asString()
            : response.statusCode() + ":" + json(response).path("code").asString("?");
    counts.merge(key, 1, Integer::sum);
  }
}
