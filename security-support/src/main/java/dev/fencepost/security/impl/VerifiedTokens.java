package dev.fencepost.security.impl;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;

/**
 * A {@link JwtDecoder} that verifies each distinct bearer token once and answers its repeats from
 * memory until the token expires or {@code ttl} has passed, whichever is first (ADR 0189).
 *
 * <p>A caller presents the same token on every request for the token's lifetime, so the signature
 * check (RSA or ECDSA, with Base64 and JSON parsing around it) was repeated thousands of times per
 * token: 7 to 8 % of the lock server's CPU in the lock benchmark's profile. Everything the delegate
 * checks except time is a property of the token's bytes (signature, issuer, audience), so a repeat
 * of the exact same string needs only the time check, which this class does itself, more strictly
 * than the delegate: an entry ends at the token's {@code exp}, with none of the clock skew the
 * delegate allows. Only tokens the delegate accepted are remembered; a refused one is verified (and
 * refused) again every time. {@code ttl} bounds how long a token signed by a key the issuer has
 * since withdrawn can still be accepted.
 */
final class VerifiedTokens implements JwtDecoder {

  private final JwtDecoder delegate;
  private final Clock clock;
  private final boolean remembers;
  private final Cache<String, Jwt> verified;

  /**
   * @param ttl the longest a verified token is remembered; zero remembers nothing
   * @param maxTokens bound on the tokens remembered at once (a few per calling workload)
   */
  VerifiedTokens(JwtDecoder delegate, Duration ttl, long maxTokens, Clock clock) {
    this.delegate = delegate;
    this.clock = clock;
    this.remembers = !ttl.isZero();
    this.verified =
        Caffeine.newBuilder()
            .maximumSize(maxTokens)
            .ticker(ticker(clock))
            .expireAfter(new UntilExpiry(ttl, clock))
            .build();
  }

  @Override
  public Jwt decode(String token) throws JwtException {
    if (!remembers) {
      return delegate.decode(token);
    }
    Jwt known = verified.getIfPresent(token);
    if (known != null && isBeforeExpiry(known)) {
      return known;
    }
    Jwt jwt = delegate.decode(token);
    if (isBeforeExpiry(jwt)) {
      verified.put(token, jwt);
    }
    return jwt;
  }

  /** Tokens remembered now (for tests). */
  long remembered() {
    verified.cleanUp();
    return verified.estimatedSize();
  }

  private boolean isBeforeExpiry(Jwt jwt) {
    Instant expiresAt = jwt.getExpiresAt();
    return expiresAt != null && clock.instant().isBefore(expiresAt);
  }

  private static Ticker ticker(Clock clock) {
    return () -> {
      Instant now = clock.instant();
      return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    };
  }

  /** Each entry lives until its token's expiry or the ttl, whichever comes first. */
  private static final class UntilExpiry implements Expiry<String, Jwt> {
    private final long ttlNanos;
    private final Clock clock;

    UntilExpiry(Duration ttl, Clock clock) {
      this.ttlNanos = ttl.toNanos();
      this.clock = clock;
    }

    @Override
    public long expireAfterCreate(String token, Jwt jwt, long currentTime) {
      long untilExpiry = Duration.between(clock.instant(), jwt.getExpiresAt()).toNanos();
      return Math.max(0, Math.min(ttlNanos, untilExpiry));
    }

    @Override
    public long expireAfterUpdate(String token, Jwt jwt, long currentTime, long currentDuration) {
      return expireAfterCreate(token, jwt, currentTime);
    }

    @Override
    public long expireAfterRead(String token, Jwt jwt, long currentTime, long currentDuration) {
      return currentDuration;
    }
  }
}
