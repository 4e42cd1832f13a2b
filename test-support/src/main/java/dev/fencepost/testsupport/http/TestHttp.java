package dev.fencepost.testsupport.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A plain JDK HTTP client for tests that call a service as its callers do. Every request carries
 * the bearer token {@code tokens} picks for it (null: none) unless it sets its own Authorization
 * header, so one client serves the honest caller, the anonymous one and the wrong role alike.
 *
 * <p>Failures are the JDK's checked exceptions, so that a test can assert that a call timed out;
 * {@link #unchecked} is for the tests that only want the answer.
 */
public final class TestHttp {

  /** Reads and writes the tests' JSON bodies. */
  public static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient client;
  private final String base;
  private final Duration timeout;
  private final Function<HttpRequest, String> tokens;

  /**
   * Requests go to {@code base} followed by their path (an empty base: paths are whole URLs), wait
   * at most {@code timeout} for an answer unless a call says otherwise, and carry the token {@code
   * tokens} picks.
   */
  public TestHttp(
      HttpClient client, String base, Duration timeout, Function<HttpRequest, String> tokens) {
    this.client = client;
    this.base = base;
    this.timeout = timeout;
    this.tokens = tokens;
  }

  /** A service on this machine's loopback over plain HTTP/1.1, with a client of its own. */
  public static TestHttp loopback(
      int port, Duration timeout, Function<HttpRequest, String> tokens) {
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    return new TestHttp(client, "http://127.0.0.1:" + port, timeout, tokens);
  }

  /** What every path is appended to. */
  public String base() {
    return base;
  }

  public HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return send("GET", path, null);
  }

  public HttpResponse<String> post(String path, String body)
      throws IOException, InterruptedException {
    return send("POST", path, body);
  }

  /** A POST that waits at most {@code timeout}: for the tests about slow answers. */
  public HttpResponse<String> post(String path, String body, Duration timeout)
      throws IOException, InterruptedException {
    return send("POST", path, body, timeout);
  }

  public HttpResponse<String> put(String path, String body)
      throws IOException, InterruptedException {
    return send("PUT", path, body);
  }

  public HttpResponse<String> delete(String path) throws IOException, InterruptedException {
    return send("DELETE", path, null);
  }

  /** {@code method} on {@code path}, with {@code body} as JSON when there is one. */
  public HttpResponse<String> send(String method, String path, String body)
      throws IOException, InterruptedException {
    return send(method, path, body, timeout);
  }

  private HttpResponse<String> send(String method, String path, String body, Duration timeout)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(timeout)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    return send(request.build());
  }

  /** Sends {@code request} as it is, with the caller's token unless it carries its own. */
  public HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    String token =
        request.headers().firstValue("Authorization").isPresent() ? null : tokens.apply(request);
    HttpRequest authorized =
        token == null
            ? request
            : HttpRequest.newBuilder(request, (name, value) -> true)
                .header("Authorization", "Bearer " + token)
                .build();
    return client.send(authorized, HttpResponse.BodyHandlers.ofString());
  }

  /** The body of {@code response} (an answer or a problem) as JSON. */
  public static JsonNode json(HttpResponse<String> response) {
    return JSON.readTree(response.body());
  }

  /** A call's answer; its failure as an unchecked exception, the interrupt flag kept. */
  public static <T> T unchecked(Call<T> call) {
    try {
      return call.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** An HTTP exchange that may fail as the JDK's client fails. */
  @FunctionalInterface
  public interface Call<T> {
    T run() throws IOException, InterruptedException;
  }
}
