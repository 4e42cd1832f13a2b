package dev.fencepost.railstub;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A plain JDK HTTP client for talking to the stub as its callers do. */
final class StubHttp {

  static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final String base;

  StubHttp(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  static String payment(String clientReference) {
    return "{\"clientReference\":\""
        + clientReference
        + "\",\"amountMinor\":1500,\"currency\":\"EUR\",\"beneficiaryRef\":\"ben-1\"}";
  }

  HttpResponse<String> post(String path, String body, Duration timeout)
      throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> put(String path, String body) throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> delete(String path) throws IOException, InterruptedException {
    return client.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(10))
            .DELETE()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Every movement the stub recorded for {@code clientReference}: the ground truth. */
  int movementsFor(String clientReference) throws IOException, InterruptedException {
    return json(get("/rail/admin/movements?clientReference=" + clientReference))
        .get("count")
        .asInt();
  }

  static JsonNode json(HttpResponse<String> response) {
    return JSON.readTree(response.body());
  }
}
