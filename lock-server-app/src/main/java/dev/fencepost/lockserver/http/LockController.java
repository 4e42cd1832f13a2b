package dev.fencepost.lockserver.http;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockInfo;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionNotFoundException;
import dev.fencepost.lockserver.http.LockApiModels.AcquireRequest;
import dev.fencepost.lockserver.http.LockApiModels.CreateSessionRequest;
import dev.fencepost.lockserver.http.LockApiModels.GrantRequest;
import dev.fencepost.lockserver.http.LockApiModels.GrantResponse;
import dev.fencepost.lockserver.http.LockApiModels.LockInfoResponse;
import dev.fencepost.lockserver.http.LockApiModels.RevokeRequest;
import dev.fencepost.lockserver.http.LockApiModels.RevokeResponse;
import dev.fencepost.lockserver.http.LockApiModels.SessionResponse;
import dev.fencepost.lockserver.service.InvalidLockRequestException;
import dev.fencepost.lockserver.service.LockService;
import dev.fencepost.security.CurrentCaller;
import dev.fencepost.security.FencepostRole;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The v1 HTTP API of docs/lock-server.md. Thin: parse, validate shape, delegate to {@link
 * LockService}; errors become problem documents in {@link ProblemResponses}.
 */
@RestController
class LockController {

  private final LockService service;
  private final KeepAliveStreams streams;

  LockController(LockService service, KeepAliveStreams streams) {
    this.service = service;
    this.streams = streams;
  }

  @PostMapping(path = "/v1/sessions", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<SessionResponse> createSession(@RequestBody CreateSessionRequest request) {
    long ttl = required("ttlMillis", request.ttlMillis());
    return ResponseEntity.status(HttpStatus.CREATED)
        .body(
            SessionResponse.of(
                service.createSession(
                    request.owner(), CurrentCaller.requireName(), Duration.ofMillis(ttl))));
  }

  @PostMapping("/v1/sessions/{id}/keepalive")
  SessionResponse keepAlive(@PathVariable("id") String id) {
    SessionId session = ownSession(id, "keepalive");
    return SessionResponse.of(service.keepAlive(session));
  }

  /**
   * Upgrades to the session's keepalive stream (ADR 0224), for the session's owner only, as a
   * keepalive is. A request that is not a WebSocket upgrade is refused before anything is checked.
   */
  @GetMapping("/v1/sessions/{id}/keepalive-stream")
  void keepAliveStream(
      @PathVariable("id") String id, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String upgrade = request.getHeader(HttpHeaders.UPGRADE);
    if (upgrade == null || !upgrade.equalsIgnoreCase("websocket")) {
      throw new InvalidLockRequestException(
          "the keepalive stream is a WebSocket: send Upgrade: websocket");
    }
    SessionId session = ownSession(id, "keepalive_stream");
    if (service.principalOf(session).isEmpty()) {
      // A keepalive answers this per request; a stream for no session would be open for nothing.
      throw new SessionNotFoundException(session);
    }
    streams.open(
        request,
        response,
        session,
        CurrentCaller.requireName(),
        CurrentCaller.credentialsExpireAt().orElse(null));
  }

  @DeleteMapping("/v1/sessions/{id}")
  ResponseEntity<Void> closeSession(@PathVariable("id") String id) {
    service.closeSession(ownSession(id, "session_close"));
    return ResponseEntity.noContent().build();
  }

  @PostMapping(path = "/v1/locks/{key}/acquire", consumes = MediaType.APPLICATION_JSON_VALUE)
  GrantResponse acquire(@PathVariable("key") String key, @RequestBody AcquireRequest request) {
    long wait = request.waitMillis() == null ? 0 : request.waitMillis();
    return GrantResponse.of(
        service.acquire(
            LockKey.of(key), ownSession(request.sessionId(), "acquire"), Duration.ofMillis(wait)));
  }

  @PostMapping(path = "/v1/locks/{key}/renew", consumes = MediaType.APPLICATION_JSON_VALUE)
  GrantResponse renew(@PathVariable("key") String key, @RequestBody GrantRequest request) {
    return GrantResponse.of(
        service.renew(
            LockKey.of(key), ownSession(request.sessionId(), "renew"), token(request.token())));
  }

  @PostMapping(path = "/v1/locks/{key}/release", consumes = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<Void> release(@PathVariable("key") String key, @RequestBody GrantRequest request) {
    LockKey lock = LockKey.of(key);
    FencingToken grant = token(request.token());
    service.release(lock, ownSession(request.sessionId(), "release"), grant);
    return ResponseEntity.noContent().build();
  }

  /**
   * Inspection only: never a correctness input (FR-07). The holder's session id is shown to
   * operators only: with it (and the holder's identity) a caller could renew or release the grant.
   */
  @GetMapping("/v1/locks/{key}")
  LockInfoResponse inspect(@PathVariable("key") String key) {
    LockInfo held = service.inspect(LockKey.of(key));
    String principal =
        held.sessionId() == null ? null : service.principalOf(held.sessionId()).orElse(null);
    LockInfoResponse info = LockInfoResponse.of(held, principal);
    return CurrentCaller.hasRole(FencepostRole.OPERATOR) ? info : info.withoutSessionId();
  }

  /**
   * The operator in the audit entry and the event is the authenticated caller (ADR 0131). A body
   * {@code operator} is optional; one that names someone else is refused, so a script that still
   * sends a name learns it is not the one recorded.
   */
  @PostMapping(path = "/v1/admin/locks/{key}/revoke", consumes = MediaType.APPLICATION_JSON_VALUE)
  RevokeResponse revoke(@PathVariable("key") String key, @RequestBody RevokeRequest request) {
    String operator = CurrentCaller.requireName();
    if (request.operator() != null && !request.operator().equals(operator)) {
      throw new InvalidLockRequestException(
          "operator, when given, must be the authenticated caller; it is taken from the token");
    }
    return RevokeResponse.of(service.revoke(LockKey.of(key), operator, request.reason()));
  }

  /** The session named by the request, refused unless the caller created it (ADR 0133). */
  private SessionId ownSession(String value, String operation) {
    SessionId session = sessionId(value);
    service.requireOwner(session, CurrentCaller.requireName(), operation);
    return session;
  }

  private static SessionId sessionId(String value) {
    if (value == null || value.isBlank() || value.length() > 128) {
      throw new InvalidLockRequestException("sessionId must be 1..128 non-blank characters");
    }
    return SessionId.of(value);
  }

  private static FencingToken token(Long value) {
    long token = required("token", value);
    if (token <= 0) {
      throw new InvalidLockRequestException("token must be a positive integer");
    }
    return FencingToken.of(token);
  }

  private static long required(String field, Long value) {
    if (value == null) {
      throw new InvalidLockRequestException(field + " is required");
    }
    return value;
  }
}
