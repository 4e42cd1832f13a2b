package dev.fencepost.payoutjob;

import dev.fencepost.http.OutboundHttp;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.SubmittedContent;
import dev.fencepost.security.BearerTokenSource;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * The worker's client of rail-proxy-app (docs/rail.md): submit a payout under a token, and read the
 * proxy's record of a payout for recovery (UC-04, FR-24).
 *
 * <p><b>Retries are off</b> (ADR 0042, UC-05): a re-sent submit could be a second payment if the
 * first reached the rail. The proxy is called over the platform's one client stack ({@link
 * OutboundHttp}, ADR 0197: Spring's RestClient over Apache HttpClient 5), whose automatic retries
 * are disabled explicitly; it also never follows redirects. A failure without an answer is reported
 * as {@link NoAnswer}: the caller leaves the payout as it is and lets the proxy's record decide
 * later. The submit timeout bounds the whole exchange and is longer than the proxy's own rail
 * timeout, so that the proxy records a rail timeout as TIMEOUT rather than this client giving up
 * first.
 */
public final class RailProxyClient implements AutoCloseable {

  /** The answer to a submit. */
  public sealed interface SubmitAnswer
      permits Answered, StaleToken, Duplicate, OutcomeNotRecorded, NothingSent, NoAnswer, Refused {}

  /** 200: the proxy recorded the rail's outcome: ACKED, REJECTED or TIMEOUT. */
  public record Answered(String outcome, String railReference, String declineCode)
      implements SubmitAnswer {}

  /** 409 STALE_TOKEN: the proxy has seen a newer token for the account (FR-17). Nothing sent. */
  public record StaleToken(long presentedToken, long highWater) implements SubmitAnswer {}

  /**
   * 409 DUPLICATE_SUBMISSION: the payout id was submitted before; resolve from {@code existing}
   * only when {@code content} (what that submission carried) is this payout's (ADR 0140).
   */
  public record Duplicate(Submission existing, SubmittedContent content) implements SubmitAnswer {}

  /** 503 OUTCOME_NOT_RECORDED: the rail was called, the outcome not recorded: ambiguous. */
  public record OutcomeNotRecorded(String observedOutcome) implements SubmitAnswer {}

  /** 503 PROXYDB_UNAVAILABLE: no intent recorded, the rail was not called. */
  public record NothingSent(String code) implements SubmitAnswer {}

  /** No answer at all (timeout, connection lost): unknown whether the intent was recorded. */
  public record NoAnswer(String reason) implements SubmitAnswer {}

  /** Any other answer (400 and the like): a defect on our side; nothing was sent. */
  public record Refused(int status, String body) implements SubmitAnswer {}

  /** The proxy's record of a submission; {@code outcome} null while unresolved. */
  public record Submission(
      String payoutId,
      long fencingToken,
      String outcome,
      String railReference,
      String declineCode) {}

  /** The answer to a record lookup. */
  public sealed interface Lookup permits Found, NotFound, Unavailable {}

  /**
   * The proxy has a record: something was sent (or is being sent) under this payout id, carrying
   * {@code content} (ADR 0140).
   */
  public record Found(Submission submission, SubmittedContent content) implements Lookup {}

  /** 404 SUBMISSION_NOT_FOUND: nothing was ever sent for this payout. */
  public record NotFound() implements Lookup {}

  /** No usable answer: decide nothing. */
  public record Unavailable(String reason) implements Lookup {}

  private final URI base;
  private final OutboundHttp http;
  private final RestClient submits;
  private final RestClient reads;
  private final JsonMapper json;
  private final BearerTokenSource credentials;

  /**
   * @param credentials the worker's bearer token per request (null: none is sent, and the proxy
   *     answers 401)
   */
  public RailProxyClient(
      String baseUrl,
      Duration connectTimeout,
      Duration submitTimeout,
      Duration readTimeout,
      BearerTokenSource credentials) {
    this.base = URI.create(baseUrl.endsWith("/") ? baseUrl : baseUrl + "/");
    this.http =
        OutboundHttp.builder()
            .connectTimeout(connectTimeout)
            .responseTimeout(submitTimeout)
            .build();
    this.submits = RestClient.builder().requestFactory(http.requestFactory(submitTimeout)).build();
    this.reads = RestClient.builder().requestFactory(http.requestFactory(readTimeout)).build();
    this.json = JsonMapper.builder().build();
    this.credentials = credentials;
  }

  @Override
  public void close() {
    http.close();
  }

  /**
   * The request with the worker's bearer token.
   *
   * @throws IllegalStateException no token could be obtained: nothing may be sent
   */
  private <S extends RestClient.RequestHeadersSpec<?>> S authorized(S request) {
    if (credentials != null) {
      request.header("Authorization", "Bearer " + credentials.currentToken());
    }
    return request;
  }

  /**
   * Submits {@code payout} under {@code token}, once, with the lock server's signed grant for that
   * token ({@code grant}, the held lock's latest): the proxy refuses a submission without one, 403,
   * which comes back as {@link Refused} (ADR 0137).
   */
  public SubmitAnswer submit(Payout payout, FencingToken token, String grant) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("payoutId", payout.id().toString());
    body.put("accountId", payout.accountId().value());
    body.put("fencingToken", token.value());
    body.put("clientReference", payout.id().clientReference());
    body.put("amountMinor", payout.amountMinor());
    body.put("currency", payout.currency());
    body.put("beneficiaryRef", payout.beneficiaryRef());
    body.put("grant", grant);
    RestClient.RequestBodySpec request;
    try {
      request =
          authorized(
              submits
                  .post()
                  .uri(base.resolve("v1/submissions"))
                  .contentType(MediaType.APPLICATION_JSON));
    } catch (IllegalStateException e) {
      // No token, so no request: the proxy never saw this payout (ADR 0145).
      return new NothingSent("NO_CREDENTIALS");
    }
    OutboundHttp.Answer response;
    try {
      response = OutboundHttp.exchange(request.body(json.writeValueAsString(body)));
    } catch (IOException e) {
      return new NoAnswer(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    Map<String, Object> answer = parse(response.body());
    String code = string(answer, "code");
    int status = response.statusCode();
    if (status == 200) {
      return new Answered(
          string(answer, "outcome"),
          string(answer, "railReference"),
          string(answer, "declineCode"));
    }
    if (status == 409 && "STALE_TOKEN".equals(code)) {
      return new StaleToken(number(answer, "presentedToken"), number(answer, "highWater"));
    }
    if (status == 409 && "DUPLICATE_SUBMISSION".equals(code)) {
      Object existing = answer.get("existing");
      if (existing instanceof Map<?, ?> record) {
        return new Duplicate(submission(cast(record)), content(cast(record)));
      }
    }
    if (status == 503 && "OUTCOME_NOT_RECORDED".equals(code)) {
      return new OutcomeNotRecorded(string(answer, "observedOutcome"));
    }
    if (status == 503 && "PROXYDB_UNAVAILABLE".equals(code)) {
      return new NothingSent(code);
    }
    if (status >= 500) {
      // Any other 5xx: we cannot tell whether the intent was recorded; the record decides later.
      return new NoAnswer("HTTP " + status + " " + code);
    }
    return new Refused(status, response.body());
  }

  /** The proxy's record of {@code payout}, for recovery. */
  public Lookup find(PayoutId payout) {
    try {
      OutboundHttp.Answer response =
          OutboundHttp.exchange(
              authorized(reads.get().uri(base.resolve("v1/submissions/" + payout))));
      Map<String, Object> answer = parse(response.body());
      if (response.statusCode() == 200) {
        return new Found(submission(answer), content(answer));
      }
      if (response.statusCode() == 404 && "SUBMISSION_NOT_FOUND".equals(string(answer, "code"))) {
        return new NotFound();
      }
      return new Unavailable("HTTP " + response.statusCode() + " " + string(answer, "code"));
    } catch (IOException | IllegalStateException e) {
      return new Unavailable(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private Submission submission(Map<String, Object> record) {
    return new Submission(
        string(record, "payoutId"),
        number(record, "fencingToken"),
        string(record, "outcome"),
        string(record, "railReference"),
        string(record, "declineCode"));
  }

  /** What the recorded submission carried; a missing field stays null (or -1) and so differs. */
  private static SubmittedContent content(Map<String, Object> record) {
    return new SubmittedContent(
        string(record, "accountId"),
        number(record, "amountMinor"),
        string(record, "currency"),
        string(record, "beneficiaryRef"),
        string(record, "clientReference"));
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> parse(String body) {
    if (body == null || body.isBlank()) {
      return Map.of();
    }
    try {
      Object value = json.readValue(body, Object.class);
      return value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
    } catch (RuntimeException e) {
      return Map.of();
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cast(Map<?, ?> map) {
    return (Map<String, Object>) map;
  }

  private static String string(Map<String, Object> map, String key) {
    Object value = map.get(key);
    return value == null ? null : String.valueOf(value);
  }

  private static long number(Map<String, Object> map, String key) {
    Object value = map.get(key);
    return value instanceof Number n ? n.longValue() : -1;
  }
}
