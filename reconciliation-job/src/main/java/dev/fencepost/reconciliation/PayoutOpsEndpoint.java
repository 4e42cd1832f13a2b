package dev.fencepost.reconciliation;

import dev.fencepost.payment.Payout;
import dev.fencepost.security.CurrentCaller;
import dev.fencepost.web.EndpointProblems;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.http.HttpStatus;
import org.springframework.lang.Nullable;

/**
 * Where an operator acts (ADR 0074): {@code POST /actuator/payoutops/{payoutId}/{action}} with body
 * {@code {"reason": "..."}}, action {@code cancel} or {@code abandon}, and an OPERATOR's bearer
 * token (a management endpoint, ADR 0147). The operator recorded in the audit row and the event is
 * the authenticated caller ({@link CurrentCaller}); a body {@code operator} is optional and, when
 * given, must name that caller, else 400 INVALID_REQUEST and nothing is done (as the lock server's
 * revoke does). Answers 200 with the payout's new state, or a refusal with a stable {@code code}:
 * 400 INVALID_REQUEST, 404 PAYOUT_NOT_FOUND, 409 ILLEGAL_TRANSITION / WITHIN_SLA / ACCOUNT_BUSY /
 * STALE_TOKEN, 503 LOCK_UNAVAILABLE, each as {@code application/problem+json} ({@link
 * EndpointProblems}). Exposed only when listed in {@code
 * management.endpoints.web.exposure.include}.
 */
// Write operations need UNRESTRICTED access; Boot 4 defaults a custom endpoint to read-only.
@Endpoint(id = "payoutops", defaultAccess = Access.UNRESTRICTED)
public class PayoutOpsEndpoint {

  private static final Logger log = LoggerFactory.getLogger(PayoutOpsEndpoint.class);

  private final OperatorActions actions;

  public PayoutOpsEndpoint(OperatorActions actions) {
    this.actions = actions;
  }

  @WriteOperation
  public WebEndpointResponse<Object> act(
      @Selector String payoutId,
      @Selector String action,
      @Nullable String operator,
      @Nullable String reason) {
    try {
      String caller = authenticatedOperator(payoutId, action, operator);
      Payout payout =
          switch (action) {
            case "cancel" -> actions.cancel(payoutId, caller, reason);
            case "abandon" -> actions.abandon(payoutId, caller, reason);
            default ->
                throw new OperatorActionRefusedException(
                    "INVALID_REQUEST", "action must be cancel or abandon, got " + action);
          };
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("payoutId", payout.id().toString());
      body.put("accountId", payout.accountId().value());
      body.put("state", payout.state().name());
      body.put("token", payout.tokenStamp());
      body.put("failureReason", payout.failureReason());
      return new WebEndpointResponse<>(body, 200);
    } catch (OperatorActionRefusedException e) {
      return EndpointProblems.of(status(e.code()), e.code(), e.getMessage());
    }
  }

  /**
   * The caller's identity from its token. A body {@code operator} naming someone else is refused
   * rather than ignored, so a script that still sends a name learns it is not the one recorded.
   */
  private static String authenticatedOperator(String payoutId, String action, String claimed) {
    String caller = CurrentCaller.requireName();
    if (claimed != null && !claimed.isBlank() && !claimed.trim().equals(caller)) {
      log.atWarn()
          .addKeyValue("event", "reconciliation.operator_action.operator_mismatch")
          .addKeyValue("action", action)
          .addKeyValue("payoutId", payoutId)
          .addKeyValue("operator", caller)
          .addKeyValue("claimedOperator", claimed)
          .log("operator action refused: the body names another operator than the caller");
      throw new OperatorActionRefusedException(
          "INVALID_REQUEST",
          "operator, when given, must be the authenticated caller; it is taken from the token");
    }
    return caller;
  }

  private static HttpStatus status(String code) {
    return switch (code) {
      case "INVALID_REQUEST" -> HttpStatus.BAD_REQUEST;
      case "PAYOUT_NOT_FOUND" -> HttpStatus.NOT_FOUND;
      case "LOCK_UNAVAILABLE" -> HttpStatus.SERVICE_UNAVAILABLE;
      default -> HttpStatus.CONFLICT;
    };
  }
}
