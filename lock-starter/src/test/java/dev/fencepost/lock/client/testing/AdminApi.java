package dev.fencepost.lock.client.testing;

import dev.fencepost.security.BearerTokenSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What an operator or a test does to the lock server directly, outside the client under test:
 * inspect, force-revoke, delete a session. Inspection here is test observation, never a client
 * correctness input (FR-07).
 */
public final class AdminApi {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  private final String baseUrl;

  AdminApi(String baseUrl) {
    this.baseUrl = baseUrl;
  }

  /** The server's view of a key. */
  public record Inspection(
      boolean held, Long token, String sessionId, Instant expiresAt, int waiters) {}

  /** As an operator, who also sees the holder's session id. */
  public Inspection inspect(String key) {
    JsonNode json =
        send(
            HttpRequest.newBuilder(uri("/v1/locks/" + key)).GET(),
            TestIdentity.operator("oncall@test"),
            200);
    return new Inspection(
        json.get("held").asBoolean(),
        json.hasNonNull("token") ? json.get("token").asLong() : null,
        json.hasNonNull("sessionId") ? json.get("sessionId").asString() : null,
        json.hasNonNull("expiresAt") ? Instant.parse(json.get("expiresAt").asString()) : null,
        json.get("waiters").asInt());
  }

  /** {@code POST /v1/admin/locks/{key}/revoke}; returns the revoked token, or null. */
  public Long revoke(String key, String operator, String reason) {
    String body =
        JSON.writeValueAsString(
            JSON.createObjectNode().put("operator", operator).put("reason", reason));
    JsonNode json =
        send(
            HttpRequest.newBuilder(uri("/v1/admin/locks/" + key + "/revoke"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)),
            TestIdentity.operator(operator),
            200);
    return json.hasNonNull("revokedToken") ? json.get("revokedToken").asLong() : null;
  }

  /**
   * {@code DELETE /v1/sessions/{id}}, as the test worker that owns it: the session dies behind its
   * client's back.
   */
  public void deleteSession(String sessionId) {
    send(
        HttpRequest.newBuilder(uri("/v1/sessions/" + sessionId)).DELETE(),
        TestIdentity.worker(),
        204);
  }

  private URI uri(String path) {
    return URI.create(baseUrl + path);
  }

  private JsonNode send(HttpRequest.Builder request, BearerTokenSource as, int expected) {
    request.header("Authorization", "Bearer " + as.currentToken());
    try {
      HttpResponse<String> response =
          http.send(
              request.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != expected) {
        throw new IllegalStateException(
            "expected " + expected + ", got " + response.statusCode() + ": " + response.body());
      }
      return response.body().isEmpty() ? null : JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
