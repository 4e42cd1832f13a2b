package dev.fencepost.lock.client.impl;

import dev.fencepost.security.BearerTokenSource;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * The client's validated configuration, independent of Spring Boot's binding. Validation fails fast
 * at start-up on settings that would make the local deadline meaningless.
 *
 * @param baseUrl the lock server, for example {@code http://lock-server:8081}
 * @param owner this client's self-declared identity, for audit and inspection (at most 200 chars)
 * @param ttl the session TTL asked of the server (A-04: 15 s)
 * @param safetyMargin the fraction of the TTL the local deadline gives up early (A-04: 0.3)
 * @param defaultWait how long the server may wait for a held key by default
 * @param connectTimeout TCP connect timeout for every request
 * @param readTimeout response timeout for every request; acquire adds its wait to it
 * @param retry the acquire retry budget (FR-28)
 * @param tokens where each request's bearer token comes from, or null to send none
 * @param keepAliveStream whether heartbeats go over the session's keepalive stream (ADR 0224),
 *     falling back to a request whenever the stream cannot serve one
 */
public record LockClientSettings(
    URI baseUrl,
    String owner,
    Duration ttl,
    double safetyMargin,
    Duration defaultWait,
    Duration connectTimeout,
    Duration readTimeout,
    Retry retry,
    BearerTokenSource tokens,
    boolean keepAliveStream) {

  /**
   * Smallest margin accepted: below it the local deadline would be no earlier than the server's.
   */
  public static final double MIN_SAFETY_MARGIN = 0.1;

  /**
   * Largest margin accepted: above it the deadline (TTL x (1 - margin)) would come before the next
   * heartbeat (TTL / 3) and every lock would be lost between two heartbeats.
   */
  public static final double MAX_SAFETY_MARGIN = 0.6;

  public LockClientSettings {
    Objects.requireNonNull(baseUrl, "baseUrl");
    if (baseUrl.getScheme() == null
        || !(baseUrl.getScheme().equals("http") || baseUrl.getScheme().equals("https"))) {
      throw new IllegalArgumentException("base-url must be an http(s) URL, got " + baseUrl);
    }
    if (owner == null || owner.isBlank() || owner.length() > 200) {
      throw new IllegalArgumentException("owner must be 1..200 non-blank characters");
    }
    requirePositive("ttl", ttl);
    if (!(safetyMargin >= MIN_SAFETY_MARGIN && safetyMargin <= MAX_SAFETY_MARGIN)) {
      throw new IllegalArgumentException(
          "safety-margin must be within ["
              + MIN_SAFETY_MARGIN
              + ", "
              + MAX_SAFETY_MARGIN
              + "], got "
              + safetyMargin);
    }
    Objects.requireNonNull(defaultWait, "defaultWait");
    if (defaultWait.isNegative()) {
      throw new IllegalArgumentException("wait must not be negative");
    }
    requirePositive("connect-timeout", connectTimeout);
    requirePositive("read-timeout", readTimeout);
    Objects.requireNonNull(retry, "retry");
    Duration interval = ttl.dividedBy(3);
    if (readTimeout.compareTo(interval) >= 0 || connectTimeout.compareTo(interval) >= 0) {
      // A heartbeat stuck in a request longer than the interval would delay the next one and eat
      // into the deadline; fail at start-up instead of losing locks at run time.
      throw new IllegalArgumentException(
          "connect-timeout ("
              + connectTimeout
              + ") and read-timeout ("
              + readTimeout
              + ") must be shorter than the heartbeat interval ttl/3 ("
              + interval
              + ")");
    }
  }

  /** The settings with heartbeats over the keepalive stream, the default (ADR 0224). */
  public LockClientSettings(
      URI baseUrl,
      String owner,
      Duration ttl,
      double safetyMargin,
      Duration defaultWait,
      Duration connectTimeout,
      Duration readTimeout,
      Retry retry,
      BearerTokenSource tokens) {
    this(
        baseUrl,
        owner,
        ttl,
        safetyMargin,
        defaultWait,
        connectTimeout,
        readTimeout,
        retry,
        tokens,
        true);
  }

  /** The same settings presenting tokens from {@code tokens} (null: none). */
  public LockClientSettings withTokens(BearerTokenSource tokens) {
    return new LockClientSettings(
        baseUrl,
        owner,
        ttl,
        safetyMargin,
        defaultWait,
        connectTimeout,
        readTimeout,
        retry,
        tokens,
        keepAliveStream);
  }

  /** The heartbeat period: a third of the TTL. */
  public Duration heartbeatInterval() {
    return ttl.dividedBy(3);
  }

  /** The part of the TTL the local deadline gives up early: {@code ttl * safetyMargin}. */
  public Duration margin() {
    return Duration.ofNanos((long) (ttl.toNanos() * safetyMargin));
  }

  private static void requirePositive(String name, Duration value) {
    if (value == null || value.isZero() || value.isNegative()) {
      throw new IllegalArgumentException(name + " must be positive, got " + value);
    }
  }

  /**
   * The acquire retry budget (FR-28): at most {@code maxAttempts} attempts and no new attempt once
   * {@code maxElapsed} would be exceeded, with full-jitter exponential backoff between them.
   *
   * @param maxAttempts attempts in all, the first included (at least 1)
   * @param baseDelay the backoff cap before the second attempt; doubles per attempt
   * @param maxDelay the largest backoff cap
   * @param maxElapsed the total time after which no new attempt starts
   */
  public record Retry(int maxAttempts, Duration baseDelay, Duration maxDelay, Duration maxElapsed) {

    public Retry {
      if (maxAttempts < 1 || maxAttempts > 20) {
        throw new IllegalArgumentException("retry.max-attempts must be 1..20, got " + maxAttempts);
      }
      requirePositive("retry.base-delay", baseDelay);
      requirePositive("retry.max-delay", maxDelay);
      requirePositive("retry.max-elapsed", maxElapsed);
      if (maxDelay.compareTo(baseDelay) < 0) {
        throw new IllegalArgumentException("retry.max-delay must be >= retry.base-delay");
      }
    }
  }
}
