package dev.fencepost.railproxy;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.bc.BouncyCastleProviderSingleton;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.proc.JWSVerifierFactory;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyFactory;
import java.security.Provider;
import java.security.interfaces.ECPublicKey;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * ES256 verifiers whose arithmetic is Bouncy Castle's (ADR 0191): on Java 17 the JDK's P-256
 * verification cost about 1.8 ms of CPU per grant on this project's machine, Bouncy Castle's about
 * 0.15 ms. Only ES256 and EC public keys: anything else is refused as the default factory would
 * refuse an algorithm it does not know.
 *
 * <p>The provider wants keys in its own form (handed a JDK key it converts the curve on every call
 * and is hardly faster than the JDK), so each published key is translated once and kept. The keys
 * come only from the lock server's published set, a handful at a time; the map is emptied if it
 * ever holds more than {@value #MAX_KEYS}, so no sequence of keys grows it.
 */
final class BouncyCastleEs256Verifiers implements JWSVerifierFactory {

  static final int MAX_KEYS = 32;

  private final Provider bouncyCastle = BouncyCastleProviderSingleton.getInstance();
  private final JCAContext context = new JCAContext(bouncyCastle, null);
  private final Map<Key, ECPublicKey> translated = new ConcurrentHashMap<>();

  @Override
  public Set<JWSAlgorithm> supportedJWSAlgorithms() {
    return Set.of(JWSAlgorithm.ES256);
  }

  @Override
  public JCAContext getJCAContext() {
    return context;
  }

  @Override
  public JWSVerifier createJWSVerifier(JWSHeader header, Key key) throws JOSEException {
    if (!JWSAlgorithm.ES256.equals(header.getAlgorithm())) {
      throw new JOSEException("unsupported JWS algorithm " + header.getAlgorithm());
    }
    if (!(key instanceof ECPublicKey ec)) {
      throw new JOSEException("an ES256 signature needs an EC public key");
    }
    ECDSAVerifier verifier = new ECDSAVerifier(own(ec));
    verifier.getJCAContext().setProvider(bouncyCastle);
    return verifier;
  }

  /** How many keys are kept translated (tests). */
  int keysKept() {
    return translated.size();
  }

  private ECPublicKey own(ECPublicKey key) throws JOSEException {
    ECPublicKey known = translated.get(key);
    if (known != null) {
      return known;
    }
    ECPublicKey own;
    try {
      own = (ECPublicKey) KeyFactory.getInstance("EC", bouncyCastle).translateKey(key);
    } catch (GeneralSecurityException | ClassCastException e) {
      throw new JOSEException("the EC key is not usable for ES256: " + e.getMessage(), e);
    }
    if (translated.size() >= MAX_KEYS) {
      translated.clear();
    }
    translated.put(key, own);
    return own;
  }
}
