package dev.fencepost.lockserver.http;

import dev.fencepost.lockserver.TestIdentities;
import dev.fencepost.security.BearerTokenSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A deliberately raw HTTP client for contract tests: sends exactly the bytes the test names, with
 * the bearer token of the identity it acts as ({@link TestIdentities#client()} unless told).
 */
public final class LockServerClient {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String baseUrl;
  private final BearerTokenSource tokens;

  public LockServerClient(String baseUrl) {
    this(baseUrl, TestIdentities.client());
  }

  /** A client acting as the identity of {@code tokens}; null sends no token. */
  public LockServerClient(String baseUrl, BearerTokenSource tokens) {
    this.baseUrl = baseUrl;
    this.tokens = tokens;
  }

  /** The same server, called as the identity of {@code tokens}. */
  public LockServerClient as(BearerTokenSource tokens) {
    return new LockServerClient(baseUrl, tokens);
  }

  /** The same server, called without any token. */
  public LockServerClient anonymous() {
    return new LockServerClient(baseUrl, null);
  }

  /** A client of a lock server started in this JVM, on the loopback port it listens on. */
  public static LockServerClient of(ConfigurableApplicationContext server) {
    int port = ((WebServerApplicationContext) server).getWebServer().getPort();
    return new LockServerClient("http://127.0.0.1:" + port);
  }

  /**
   * A client of the management port ({@code /actuator/*}) of a lock server started in this JVM with
   * {@code --management.server.port=0}.
   */
  public static LockServerClient managementOf(ConfigurableApplicationContext server) {
    String port = server.getEnvironment().getProperty("local.management.port");
    if (port == null) {
      throw new IllegalStateException("the server has no management port of its own");
    }
    return new LockServerClient("http://127.0.0.1:" + port);
  }

  /**
   * A response: status, parsed body (null if empty), the raw body, its content type, and its {@code
   * Retry-After} header (null without one).
   */
  public record Response(
      int status, JsonNode json, String body, String contentType, String retryAfter) {
    public String code() {
      return json == null || json.get("code") == null ? null : json.get("code").asString();
    }

    public long token() {
      return json.get("token").asLong();
    }
  }

  public Response post(String path, String body) {
    return send(
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  public Response post(String path, String contentType, byte[] body) {
    return send(
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build());
  }

  public Response get(String path) {
    return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET().build());
  }

  public Response delete(String path) {
    return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).DELETE().build());
  }

  public Response createSession(String owner, long ttlMillis) {
    return post("/v1/sessions", "{\"owner\":\"" + owner + "\",\"ttlMillis\":" + ttlMillis + "}");
  }

  public String newSession(String owner) {
    Response response = createSession(owner, 60_000);
    if (response.status() != 201) {
      throw new IllegalStateException("session not created: " + response);
    }
    return response.json().get("sessionId").asString();
  }

  public Response acquire(String key, String sessionId, long waitMillis) {
    return onLock(
        key, "acquire", "{\"sessionId\":\"" + sessionId + "\",\"waitMillis\":" + waitMillis + "}");
  }

  public Response renew(String key, String sessionId, long token) {
    return onLock(key, "renew", holder(sessionId, token));
  }

  public Response release(String key, String sessionId, long token) {
    return onLock(key, "release", holder(sessionId, token));
  }

  private Response onLock(String key, String action, String body) {
    return post("/v1/locks/" + key + "/" + action, body);
  }

  /** The body that names a grant's holder: its session and its token. */
  private static String holder(String sessionId, long token) {
    return "{\"sessionId\":\"" + sessionId + "\",\"token\":" + token + "}";
  }

  /** Revokes as the operator {@code operator}, who also names itself in the body. */
  public Response revoke(String key, String operator, String reason) {
    return as(TestIdentities.operator(operator))
        .post(
            "/v1/admin/locks/" + key + "/revoke",
            "{\"operator\":\"" + operator + "\",\"reason\":\"" + reason + "\"}");
  }

  public Response send(HttpRequest request) {
    if (tokens != null) {
      request =
          HttpRequest.newBuilder(request, (name, value) -> true)
              .header("Authorization", "Bearer " + tokens.currentToken())
              .build();
    }
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      String body = response.body();
      JsonNode json = null;
      if (body != null && !body.isBlank()) {
        try {
          json = JSON.readTree(body);
        } catch (RuntimeException notJson) {
          json = null;
        }
      }
      return new Response(
          response.statusCode(),
          json,
          body,
          response.headers().firstValue("Content-Type").orElse(""),
          response.headers().firstValue("Retry-After").orElse(null));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
