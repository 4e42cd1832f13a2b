package dev.fencepost.railproxy;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.text.ParseException;
import java.time.Clock;
import java.time.Instant;

/**
 * Verifies a grant with Nimbus JOSE+JWT against the lock server's keys (ADR 0137): ES256 only, JOSE
 * {@code typ} {@value #TYPE}, a key the lock server publishes (current or previous), then the
 * claims: {@code lock_key} is {@code payout:{accountId}}, {@code fencing_token} is the presented
 * token, and {@code exp} plus the allowed clock skew is not past. The signature check itself runs
 * on Bouncy Castle's arithmetic ({@link BouncyCastleEs256Verifiers}, ADR 0191).
 */
public final class SignedGrantVerifier implements GrantVerifier {

  /** The grant's JOSE {@code typ}, as the lock server sets it. */
  static final String TYPE = "fencepost-grant+jwt";

  private final DefaultJWTProcessor<SecurityContext> processor;
  private final GrantVerificationProperties properties;
  private final Clock clock;

  SignedGrantVerifier(
      JWKSource<SecurityContext> keys, GrantVerificationProperties properties, Clock clock) {
    this.properties = properties;
    this.clock = clock;
    this.processor = new DefaultJWTProcessor<>();
    processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(new JOSEObjectType(TYPE)));
    processor.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.ES256, keys));
    processor.setJWSVerifierFactory(new BouncyCastleEs256Verifiers());
    // The claims are checked below, each with its own refusal code.
    processor.setJWTClaimsSetVerifier((claims, context) -> {});
  }

  /** The verifier the configuration asks for: the lock server's URL, or a static file. */
  public static SignedGrantVerifier from(GrantVerificationProperties properties, Clock clock) {
    return new SignedGrantVerifier(keySource(properties), properties, clock);
  }

  private static JWKSource<SecurityContext> keySource(GrantVerificationProperties p) {
    if (p.jwkSetFile() != null) {
      try {
        return new ImmutableJWKSet<>(JWKSet.load(p.jwkSetFile().toFile()).toPublicJWKSet());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + p.jwkSetFile(), e);
      } catch (ParseException e) {
        throw new IllegalStateException(p.jwkSetFile() + " is not a JWK set", e);
      }
    }
    int timeout = (int) p.keysFetchTimeout().toMillis();
    try {
      return JWKSourceBuilder.<SecurityContext>create(
              p.jwkSetUri().toURL(), new DefaultResourceRetriever(timeout, timeout, 64 * 1024))
          .cache(p.keysCacheTtl().toMillis(), timeout)
          // Fetched when needed (expired, or an unknown kid), never in the background.
          .refreshAheadCache(false)
          .rateLimited(p.keysRefetchMinInterval().toMillis())
          .retrying(false)
          .build();
    } catch (MalformedURLException e) {
      throw new IllegalStateException("fencepost.proxy.grants.jwk-set-uri is not a URL", e);
    }
  }

  @Override
  public void verify(SubmissionRequest request) {
    String grant = request.grant();
    if (grant == null || grant.isEmpty()) {
      throw refused(GrantRefusedException.Code.GRANT_MISSING, request, null, "no grant", null);
    }
    SignedJWT jwt;
    try {
      jwt = SignedJWT.parse(grant);
    } catch (ParseException e) {
      throw refused(GrantRefusedException.Code.FORGED_GRANT, request, null, "not a signed JWT", e);
    }
    String kid = jwt.getHeader().getKeyID();
    JWTClaimsSet claims;
    try {
      claims = processor.process(jwt, null);
    } catch (RateLimitReachedException e) {
      // The kid is not in the key set fetched moments ago, and fetching again so soon is what the
      // rate limit forbids: as far as the lock server's published keys go, it is not one of them.
      throw refused(
          GrantRefusedException.Code.FORGED_GRANT,
          request,
          kid,
          "key id " + kid + " is not among the lock server's published keys",
          e);
    } catch (KeySourceException e) {
      throw new GrantKeysUnavailableException(
          "the lock server's grant keys are unavailable: " + e.getMessage(), e);
    } catch (BadJOSEException | JOSEException e) {
      throw refused(
          GrantRefusedException.Code.FORGED_GRANT,
          request,
          kid,
          "signature not verified by any published key: " + e.getMessage(),
          e);
    }
    String lockKey = claim(claims, "lock_key");
    Long token = number(claims, "fencing_token");
    if (!request.lockKey().equals(lockKey)) {
      throw refused(
          GrantRefusedException.Code.GRANT_MISMATCH,
          request,
          kid,
          "the grant is for " + lockKey + ", not " + request.lockKey(),
          null);
    }
    if (token == null || token != request.fencingToken()) {
      throw refused(
          GrantRefusedException.Code.GRANT_MISMATCH,
          request,
          kid,
          "the grant is for token " + token + ", not " + request.fencingToken(),
          null);
    }
    if (claims.getExpirationTime() == null) {
      throw refused(GrantRefusedException.Code.FORGED_GRANT, request, kid, "no expiry", null);
    }
    Instant expiry = claims.getExpirationTime().toInstant();
    if (clock.instant().isAfter(expiry.plus(properties.clockSkew()))) {
      throw refused(
          GrantRefusedException.Code.GRANT_EXPIRED,
          request,
          kid,
          "the grant expired at " + expiry,
          null);
    }
  }

  private static String claim(JWTClaimsSet claims, String name) {
    try {
      return claims.getStringClaim(name);
    } catch (ParseException e) {
      return null;
    }
  }

  private static Long number(JWTClaimsSet claims, String name) {
    try {
      return claims.getLongClaim(name);
    } catch (ParseException e) {
      return null;
    }
  }

  private static GrantRefusedException refused(
      GrantRefusedException.Code code,
      SubmissionRequest request,
      String kid,
      String detail,
      Throwable cause) {
    return new GrantRefusedException(code, request, kid, detail, cause);
  }
}
