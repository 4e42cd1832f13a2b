package dev.fencepost.lockserver.grant;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.bc.BouncyCastleProviderSingleton;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.fencepost.lock.LockGrant;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.Provider;
import java.security.interfaces.ECPrivateKey;
import java.text.ParseException;
import java.time.Clock;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs lock grants (ADR 0135): a compact JWS, ES256, header {@code kid} and {@code typ} {@value
 * #TYPE}, claims {@value #KEY}, {@value #TOKEN}, {@value #SESSION}, {@code iat} and {@code exp}
 * (the grant's {@code expiresAt}, whole seconds rounded down). Nimbus JOSE+JWT builds the JWS; the
 * signature itself is Bouncy Castle's (ADR 0191): on Java 17 the JDK's own P-256 signing cost about
 * 1 ms of CPU per grant, a quarter to a half of everything the server spends on an acquire, and
 * Bouncy Castle's takes about a seventh of that. Any JOSE library verifies the result; nothing
 * changes for the verifiers.
 *
 * <p>The keys are a JWK set file (ADR 0136, {@link GrantSigningProperties}): its first key signs,
 * every key is published (public parts only) by {@link #publicKeys()}.
 */
public final class GrantSigner {

  /** The JOSE {@code typ} of a grant, so that no other token signed by some key passes as one. */
  public static final String TYPE = "fencepost-grant+jwt";

  /** Claim: the lock key, e.g. {@code payout:acc-1}. */
  public static final String KEY = "lock_key";

  /** Claim: the fencing token, a JSON integer. */
  public static final String TOKEN = "fencing_token";

  /** Claim: the session the grant is attached to. */
  public static final String SESSION = "sid";

  /** Claim {@code iss}. */
  public static final String ISSUER = "fencepost-lock-server";

  private static final Logger log = LoggerFactory.getLogger(GrantSigner.class);

  private final ECKey current;
  private final JWSSigner signer;
  private final JWKSet publicKeys;
  private final Clock clock;

  private GrantSigner(ECKey current, JWKSet publicKeys, Clock clock) {
    this.current = current;
    this.publicKeys = publicKeys;
    this.clock = clock;
    try {
      this.signer = signer(current);
    } catch (JOSEException | GeneralSecurityException e) {
      throw new IllegalStateException("grant-signing key " + current.getKeyID() + " unusable", e);
    }
  }

  /**
   * An ES256 signer over Bouncy Castle's provider, given the key in Bouncy Castle's own form:
   * handed a JDK key, the provider converts its curve parameters on every signature and loses the
   * precomputed multiples of the generator that make it fast (ADR 0191). The provider is passed
   * here only, never registered JVM-wide, so TLS and every other use of the JCA keep the JDK's.
   */
  private static JWSSigner signer(ECKey key) throws JOSEException, GeneralSecurityException {
    Provider bouncyCastle = BouncyCastleProviderSingleton.getInstance();
    ECPrivateKey own =
        (ECPrivateKey)
            KeyFactory.getInstance("EC", bouncyCastle).translateKey(key.toECPrivateKey());
    ECDSASigner signer = new ECDSASigner(own);
    signer.getJCAContext().setProvider(bouncyCastle);
    return signer;
  }

  /** The JWS signer (tests: which provider signs). */
  JWSSigner jwsSigner() {
    return signer;
  }

  /**
   * Reads the JWK set file.
   *
   * @throws IllegalStateException the file is missing or unreadable, or its keys are not EC P-256
   *     keys with distinct ids, or the first one has no private part
   */
  public static GrantSigner fromJwkSetFile(Path file) {
    String json;
    try {
      json = Files.readString(file);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the grant-signing JWK set " + file, e);
    }
    JWKSet set;
    try {
      set = JWKSet.parse(json);
    } catch (ParseException e) {
      throw new IllegalStateException("the grant-signing JWK set " + file + " is not one", e);
    }
    return of(set, Clock.systemUTC(), file.toString());
  }

  /** From a JWK set already in memory (tests). */
  public static GrantSigner of(JWKSet set, Clock clock, String source) {
    List<JWK> keys = set.getKeys();
    if (keys.isEmpty()) {
      throw new IllegalStateException("the grant-signing JWK set " + source + " has no key");
    }
    Set<String> ids = new HashSet<>();
    for (JWK key : keys) {
      if (!(key instanceof ECKey ec) || !Curve.P_256.equals(ec.getCurve())) {
        throw new IllegalStateException(
            "grant-signing keys must be EC P-256 (ES256); " + source + " has " + key.getKeyType());
      }
      if (key.getKeyID() == null || !ids.add(key.getKeyID())) {
        throw new IllegalStateException(
            "every grant-signing key needs its own kid; "
                + source
                + " has a missing or repeated one");
      }
    }
    ECKey current = (ECKey) keys.get(0);
    if (!current.isPrivate()) {
      throw new IllegalStateException(
          "the first key of " + source + " signs grants and must include its private part");
    }
    GrantSigner signer = new GrantSigner(current, set.toPublicJWKSet(), clock);
    log.atInfo()
        .addKeyValue("event", "lock.grant_signing.keys_loaded")
        .addKeyValue("currentKid", current.getKeyID())
        .addKeyValue("publishedKeys", keys.size())
        .log("grant-signing keys loaded from {}", source);
    return signer;
  }

  /** {@code grant} with its signature. */
  public LockGrant sign(LockGrant grant) {
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .issuer(ISSUER)
            .claim(KEY, grant.key().value())
            .claim(TOKEN, grant.token().value())
            .claim(SESSION, grant.sessionId().value())
            .issueTime(Date.from(clock.instant()))
            .expirationTime(Date.from(grant.expiresAt()))
            .build();
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.ES256)
                .keyID(current.getKeyID())
                .type(new JOSEObjectType(TYPE))
                .build(),
            claims);
    try {
      jwt.sign(signer);
    } catch (JOSEException e) {
      throw new IllegalStateException("could not sign a grant", e);
    }
    return grant.withSignedGrant(jwt.serialize());
  }

  /** Every key of the set, current and previous, public parts only. */
  public JWKSet publicKeys() {
    return publicKeys;
  }

  /** The id of the key that signs. */
  public String currentKeyId() {
    return current.getKeyID();
  }
}
