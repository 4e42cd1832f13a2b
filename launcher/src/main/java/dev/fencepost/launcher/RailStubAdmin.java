package dev.fencepost.launcher;

import dev.fencepost.security.BearerTokenSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The rail stub's admin side: its fault plan and its record of every movement it made (the ground
 * truth a duplicate is counted from). Only the stub has it; a real rail has neither. Every call
 * presents an operator's token: the stub refuses its admin side to anyone else (ADR 0146).
 */
public final class RailStubAdmin {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final String baseUrl;
  private final BearerTokenSource operator;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** The stub at {@code baseUrl}, called with {@code operator}'s tokens (role OPERATOR). */
  public RailStubAdmin(String baseUrl, BearerTokenSource operator) {
    this.baseUrl = baseUrl;
    this.operator = operator;
  }

  /**
   * Replaces the fault plan: no fault by rate, no lookup lag, and {@code modes} by client reference
   * (DECLINE, TIMEOUT_BEFORE_SETTLE, TIMEOUT_AFTER_SETTLE, ...); other payments settle.
   */
  public void faults(Map<String, String> modesByClientReference) {
    faults(Map.of(), modesByClientReference);
  }

  /**
   * Replaces the fault plan: each mode at its rate in [0, 1] for every payout (the stub refuses
   * rates that sum above 1), {@code modes} by client reference winning over the rates, and no
   * lookup lag.
   */
  public void faults(Map<String, Double> ratesByMode, Map<String, String> modesByClientReference) {
    Map<String, Object> plan = new LinkedHashMap<>();
    plan.put("rates", ratesByMode);
    plan.put("overrides", modesByClientReference);
    plan.put("lookupLagMillis", 0);
    HttpResponse<String> response =
        send(
            HttpRequest.newBuilder(URI.create(baseUrl + "/rail/admin/faults"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(plan))));
    if (response.statusCode() != 200) {
      throw new IllegalStateException("fault plan refused: " + response.body());
    }
  }

  /** Back to the fault plan the stub started with. */
  public void resetFaults() {
    send(HttpRequest.newBuilder(URI.create(baseUrl + "/rail/admin/faults")).DELETE());
  }

  /** Movements made for {@code clientReference} (more than one is a duplicate payment). */
  public int movementsOf(String clientReference) {
    return JSON.readTree(
            get(
                "/rail/admin/movements?clientReference="
                    + java.net.URLEncoder.encode(
                        clientReference, java.nio.charset.StandardCharsets.UTF_8)))
        .path("count")
        .asInt();
  }

  /** Every movement so far, by client reference: how many times each was paid. */
  public Map<String, Integer> movementsByClientReference() {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (JsonNode movement : JSON.readTree(get("/rail/admin/movements")).path("movements")) {
      counts.merge(movement.path("clientReference").asString(), 1, Integer::sum);
    }
    return counts;
  }

  /**
   * Every movement so far and those beyond the first for each client reference (money paid twice;
   * must be 0), from one read of the stub's record.
   */
  public Tally tally() {
    long movements = 0;
    long duplicates = 0;
    for (int n : movementsByClientReference().values()) {
      movements += n;
      duplicates += n - 1;
    }
    return new Tally(movements, duplicates);
  }

  /** What {@link #tally()} counted. */
  public record Tally(long movements, long duplicates) {}

  private String get(String path) {
    HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("GET " + path + " answered " + response.statusCode());
    }
    return response.body();
  }

  private HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return http.send(
          request.header("Authorization", "Bearer " + operator.currentToken()).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
