package dev.fencepost.railproxy;

import dev.fencepost.security.BearerTokenSource;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The only code that talks to the rail. One submit is one HTTP exchange, never more (ADR 0042,
 * UC-05).
 *
 * <p><b>Retries are off, and here is why that holds for the JDK client.</b> A timeout does not mean
 * "did not happen": retrying a submit that the rail already settled is a duplicate payment, the
 * very loss the project exists to prevent. The JDK {@link HttpClient} has no retry policy to
 * configure; its only automatic re-sends are (a) a request whose connection could not be
 * established at all ({@code ConnectException}: no byte reached the rail, so nothing can be
 * duplicated), (b) GET/HEAD on a pooled connection found closed, and (c) any method when the JVM
 * flag {@code jdk.httpclient.enableAllMethodRetry} is set. This class forces HTTP/1.1 (no HTTP/2
 * "unprocessed stream" replays), never follows redirects, and refuses to start when that flag is
 * set, so a POST that may have reached the rail is never sent twice. The proxy tests assert exactly
 * one request per failure mode.
 *
 * <p><b>Credentials.</b> The proxy calls the rail as itself (RAIL_PROXY) with a bearer token from
 * its {@link BearerTokenSource}. {@link #credential()} is asked before the intent is recorded and
 * the token is handed to {@link #submit}, so a failure to get one is never a rail outcome: nothing
 * is recorded and nothing is sent (ADR 0145).
 */
public final class RailClient {

  static final String ALL_METHOD_RETRY_FLAG = "jdk.httpclient.enableAllMethodRetry";

  private final RailProperties properties;
  private final JsonMapper json;
  private final HttpClient http;
  private final BearerTokenSource credentials;

  public RailClient(RailProperties properties, JsonMapper json, BearerTokenSource credentials) {
    refuseAutomaticPostRetry();
    this.properties = properties;
    this.json = json;
    this.credentials = credentials;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(properties.connectTimeout())
            .build();
  }

  /** Fails start-up if the JVM was told to re-send non-idempotent requests (ADR 0042). */
  static void refuseAutomaticPostRetry() {
    String flag = System.getProperty(ALL_METHOD_RETRY_FLAG);
    if (flag != null && !flag.equalsIgnoreCase("false")) {
      throw new IllegalStateException(
          "-D"
              + ALL_METHOD_RETRY_FLAG
              + " would let the JDK HTTP client re-send a payment submit; the rail proxy never"
              + " retries a submit (ADR 0042, UC-05)");
    }
  }

  /**
   * The bearer token the next rail call presents.
   *
   * @throws RailCredentialsUnavailableException no token could be obtained; nothing may be sent
   */
  public String credential() {
    try {
      String token = credentials.currentToken();
      if (token == null || token.isBlank()) {
        throw new IllegalStateException("the token source returned no token");
      }
      return token;
    } catch (RuntimeException e) {
      throw new RailCredentialsUnavailableException(describe(e), e);
    }
  }

  /**
   * Sends one payment to the rail, presenting {@code credential} (from {@link #credential()}), and
   * classifies the answer. Never throws for a rail failure: anything that is not a clear
   * acknowledgement or a clear decline is TIMEOUT (ambiguous), a 401 or 403 from the rail included.
   */
  public RailOutcome submit(SubmissionRequest submission, String credential) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("clientReference", submission.clientReference());
    body.put("amountMinor", submission.amountMinor());
    body.put("currency", submission.currency());
    body.put("beneficiaryRef", submission.beneficiaryRef());
    HttpRequest request =
        HttpRequest.newBuilder(resolve("/rail/payments"))
            .timeout(properties.timeout())
            .header("Authorization", "Bearer " + credential)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)))
            .build();
    HttpResponse<String> response;
    try {
      response = exchange(request, properties.timeout().toMillis());
    } catch (HttpTimeoutException | TimeoutException e) {
      return RailOutcome.ambiguous("timeout after " + properties.timeout().toMillis() + " ms");
    } catch (IOException e) {
      return RailOutcome.ambiguous("connection failure: " + describe(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return RailOutcome.ambiguous("interrupted while waiting for the rail");
    }
    return classify(response);
  }

  private RailOutcome classify(HttpResponse<String> response) {
    int status = response.statusCode();
    if (status == 201 || status == 200) {
      String reference = field(response.body(), "railReference");
      return reference == null
          ? RailOutcome.ambiguous("status " + status + " without a rail reference")
          : RailOutcome.acked(reference);
    }
    if (status == 422) {
      String code = field(response.body(), "code");
      return RailOutcome.rejected(code == null ? "UNSPECIFIED" : code);
    }
    // 5xx obviously, but also any status this proxy does not understand: unknown is ambiguous.
    return RailOutcome.ambiguous("status " + status);
  }

  /**
   * The rail's read-only lookup by client reference, returned as the rail's JSON.
   *
   * @throws RailLookupUnavailableException the rail could not answer
   */
  public String lookup(String clientReference) {
    String credential;
    try {
      credential = credential();
    } catch (RailCredentialsUnavailableException e) {
      throw new RailLookupUnavailableException("no credentials for the rail: " + e.getMessage(), e);
    }
    HttpRequest request =
        HttpRequest.newBuilder(
                resolve(
                    "/rail/payments?clientReference="
                        + URLEncoder.encode(clientReference, StandardCharsets.UTF_8)))
            .timeout(properties.lookupTimeout())
            .header("Authorization", "Bearer " + credential)
            .header("Accept", "application/json")
            .GET()
            .build();
    HttpResponse<String> response;
    try {
      response = exchange(request, properties.lookupTimeout().toMillis());
    } catch (IOException | TimeoutException e) {
      throw new RailLookupUnavailableException("rail lookup failed: " + describe(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RailLookupUnavailableException("interrupted during the rail lookup", e);
    }
    if (response.statusCode() != 200) {
      throw new RailLookupUnavailableException(
          "rail lookup answered " + response.statusCode(), null);
    }
    try {
      JsonNode parsed = json.readTree(response.body());
      if (parsed == null || !parsed.isObject()) {
        throw new RailLookupUnavailableException("rail lookup answered non-object JSON", null);
      }
      return json.writeValueAsString(parsed);
    } catch (JacksonException e) {
      throw new RailLookupUnavailableException("rail lookup answered malformed JSON", e);
    }
  }

  /**
   * One exchange bounded as a whole: the request timeout covers the wait for the response headers,
   * the outer bound also covers a body that trickles. A cancelled exchange is abandoned, not
   * repeated.
   */
  private HttpResponse<String> exchange(HttpRequest request, long budgetMillis)
      throws IOException, InterruptedException, TimeoutException {
    CompletableFuture<HttpResponse<String>> future =
        http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    try {
      return future.get(budgetMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException(cause);
    }
  }

  private String field(String body, String name) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      JsonNode node = json.readTree(body);
      JsonNode value = node == null ? null : node.get(name);
      return value != null && value.isString() && !value.stringValue().isBlank()
          ? value.stringValue()
          : null;
    } catch (JacksonException e) {
      return null;
    }
  }

  private URI resolve(String pathAndQuery) {
    String base = properties.baseUrl().toString();
    if (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    return URI.create(base + pathAndQuery);
  }

  private static String describe(Throwable e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }
}
