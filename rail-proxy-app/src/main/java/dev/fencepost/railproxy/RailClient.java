package dev.fencepost.railproxy;

import dev.fencepost.http.OutboundHttp;
import dev.fencepost.security.BearerTokenSource;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The only code that talks to the rail. One submit is one HTTP exchange, never more (ADR 0042,
 * UC-05).
 *
 * <p><b>Retries are off.</b> A timeout does not mean "did not happen": retrying a submit that the
 * rail already settled is a duplicate payment, the very loss the project exists to prevent. The
 * rail is called over the platform's one client stack ({@link OutboundHttp}, ADR 0197: Spring's
 * RestClient over Apache HttpClient 5), whose automatic retries are disabled explicitly (HttpClient
 * 5's default would re-send an idempotent request after an I/O error and any request answered 429
 * or 503), which follows no redirect and speaks HTTP/1.1 only. The proxy tests assert exactly one
 * request per failure mode. Each exchange is bounded as a whole (the answer's head and its body) by
 * {@code fencepost.rail.timeout}, the lookup by {@code fencepost.rail.lookup-timeout}; an exchange
 * past its bound is abandoned, not repeated.
 *
 * <p><b>Credentials.</b> The proxy calls the rail as itself (RAIL_PROXY) with a bearer token from
 * its {@link BearerTokenSource}. {@link #credential()} is asked before the intent is recorded and
 * the token is handed to {@link #submit}, so a failure to get one is never a rail outcome: nothing
 * is recorded and nothing is sent (ADR 0145).
 */
public final class RailClient implements AutoCloseable {

  private final RailProperties properties;
  private final JsonMapper json;
  private final OutboundHttp http;
  private final RestClient submits;
  private final RestClient lookups;
  private final BearerTokenSource credentials;

  public RailClient(RailProperties properties, JsonMapper json, BearerTokenSource credentials) {
    this.properties = properties;
    this.json = json;
    this.credentials = credentials;
    this.http =
        OutboundHttp.builder()
            .connectTimeout(properties.connectTimeout())
            .responseTimeout(properties.timeout())
            .build();
    this.submits =
        RestClient.builder().requestFactory(http.requestFactory(properties.timeout())).build();
    this.lookups =
        RestClient.builder()
            .requestFactory(http.requestFactory(properties.lookupTimeout()))
            .build();
  }

  @Override
  public void close() {
    http.close();
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
    OutboundHttp.Answer response;
    try {
      response =
          OutboundHttp.exchange(
              submits
                  .post()
                  .uri(resolve("/rail/payments"))
                  .header("Authorization", "Bearer " + credential)
                  .contentType(MediaType.APPLICATION_JSON)
                  .accept(MediaType.APPLICATION_JSON)
                  .body(json.writeValueAsString(body)));
    } catch (SocketTimeoutException e) {
      return RailOutcome.ambiguous("timeout after " + properties.timeout().toMillis() + " ms");
    } catch (IOException e) {
      return RailOutcome.ambiguous("connection failure: " + describe(e));
    }
    return classify(response);
  }

  private RailOutcome classify(OutboundHttp.Answer response) {
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
    OutboundHttp.Answer response;
    try {
      response =
          OutboundHttp.exchange(
              lookups
                  .get()
                  .uri(
                      resolve(
                          "/rail/payments?clientReference="
                              + URLEncoder.encode(clientReference, StandardCharsets.UTF_8)))
                  .header("Authorization", "Bearer " + credential)
                  .accept(MediaType.APPLICATION_JSON));
    } catch (IOException e) {
      throw new RailLookupUnavailableException("rail lookup failed: " + describe(e), e);
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
