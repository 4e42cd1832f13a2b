package dev.fencepost.testsupport.grants;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.fencepost.launcher.GrantSigningKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/**
 * Signed grants for in-process tests (ADR 0135): a JVM-wide test key set ({@link #keys()}) to give
 * an in-process lock server ({@link #lockServerArg()}) or a proxy ({@link #staticProxyArg()}), and
 * grants signed here as the lock server signs them, with any key, so that a test can present a real
 * one, an expired one, one for another account, or one no lock server ever published.
 *
 * <p>This is written against the documented grant format, not against the lock server's signer: a
 * change of one without the other fails the tests that use both.
 */
public final class TestGrants {

  /** The grant's JOSE {@code typ}. */
  public static final String TYPE = "fencepost-grant+jwt";

  private static GrantSigningKeys shared;

  private TestGrants() {}

  /** The test key set of this JVM, generated on first use in a temporary directory. */
  public static synchronized GrantSigningKeys keys() {
    if (shared == null) {
      try {
        shared = GrantSigningKeys.generate(Files.createTempDirectory("fencepost-test-grant-keys-"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return shared;
  }

  /** {@code --fencepost.lock.grant-signing.jwk-set-file=...} for an in-process lock server. */
  public static String lockServerArg() {
    return keys().lockServerArg();
  }

  /** {@code --fencepost.proxy.grants.jwk-set-file=...} for an in-process proxy. */
  public static String staticProxyArg() {
    return keys().staticProxyArg();
  }

  /** A grant for {@code payout:{accountId}} and {@code token}, valid for a minute, test key. */
  public static String forAccount(String accountId, long token) {
    return sign(keys().current(), "payout:" + accountId, token, Instant.now().plusSeconds(60));
  }

  /** A grant for {@code lockKey} and {@code token} that expired {@code ago}, test key. */
  public static String expired(String lockKey, long token, Duration ago) {
    return sign(keys().current(), lockKey, token, Instant.now().minus(ago));
  }

  /** A grant signed by {@code key}, as the lock server signs one. */
  public static String sign(ECKey key, String lockKey, long token, Instant expiresAt) {
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .issuer("fencepost-lock-server")
            .claim("lock_key", lockKey)
            .claim("fencing_token", token)
            .claim("sid", "test-session")
            .issueTime(new Date())
            .expirationTime(Date.from(expiresAt))
            .build();
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.ES256)
                .keyID(key.getKeyID())
                .type(new JOSEObjectType(TYPE))
                .build(),
            claims);
    try {
      jwt.sign(new ECDSASigner(key));
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
    return jwt.serialize();
  }
}
