package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;

/**
 * The grant verifier's ES256 arithmetic (ADR 0191); the whole verifier is
 * SignedGrantSubmissionTest's.
 */
class BouncyCastleEs256VerifiersTest {

  private final BouncyCastleEs256Verifiers verifiers = new BouncyCastleEs256Verifiers();

  @Test
  void aJdkSignedGrantVerifiesThroughBouncyCastleAndATamperedOneDoesNot() throws Exception {
    ECKey key = new ECKeyGenerator(Curve.P_256).keyID("k1").generate();
    SignedJWT jwt = signedWithTheJdk(key, 42);
    ECDSAVerifier verifier =
        (ECDSAVerifier) verifiers.createJWSVerifier(jwt.getHeader(), key.toECPublicKey());

    assertThat(verifier.getJCAContext().getProvider().getName()).isEqualTo("BC");
    assertThat(verifier.getPublicKey().getClass().getName()).startsWith("org.bouncycastle.");
    assertThat(verifier.verify(jwt.getHeader(), jwt.getSigningInput(), jwt.getSignature()))
        .isTrue();

    // The signature of another grant over this one's content: refused.
    Base64URL other = signedWithTheJdk(key, 43).getSignature();
    assertThat(verifier.verify(jwt.getHeader(), jwt.getSigningInput(), other)).isFalse();
  }

  @Test
  void aSignatureByAnotherKeyIsRefused() throws Exception {
    ECKey published = new ECKeyGenerator(Curve.P_256).keyID("k1").generate();
    SignedJWT forged = signedWithTheJdk(new ECKeyGenerator(Curve.P_256).keyID("k1").generate(), 42);

    assertThat(
            verifiers
                .createJWSVerifier(forged.getHeader(), published.toECPublicKey())
                .verify(forged.getHeader(), forged.getSigningInput(), forged.getSignature()))
        .isFalse();
  }

  @Test
  void onlyEs256OverAnEcKeyIsVerified() throws Exception {
    ECKey key = new ECKeyGenerator(Curve.P_256).generate();

    assertThatThrownBy(
            () ->
                verifiers.createJWSVerifier(new JWSHeader(JWSAlgorithm.ES384), key.toECPublicKey()))
        .isInstanceOf(JOSEException.class)
        .hasMessageContaining("ES384");
    assertThatThrownBy(
            () ->
                verifiers.createJWSVerifier(
                    new JWSHeader(JWSAlgorithm.ES256),
                    new RSAKeyGenerator(2048).generate().toRSAPublicKey()))
        .isInstanceOf(JOSEException.class);
  }

  @Test
  void eachPublishedKeyIsTranslatedOnceAndTheKeptKeysStayBounded() throws Exception {
    ECKey key = new ECKeyGenerator(Curve.P_256).generate();
    JWSHeader header = new JWSHeader(JWSAlgorithm.ES256);
    // The key selector hands over a new JDK key object per grant: equal keys share one entry.
    verifiers.createJWSVerifier(header, key.toECPublicKey());
    verifiers.createJWSVerifier(header, key.toPublicJWK().toECPublicKey());
    assertThat(verifiers.keysKept()).isEqualTo(1);

    for (int i = 0; i < 3 * BouncyCastleEs256Verifiers.MAX_KEYS; i++) {
      verifiers.createJWSVerifier(
          header, new ECKeyGenerator(Curve.P_256).generate().toECPublicKey());
    }
    assertThat(verifiers.keysKept()).isLessThanOrEqualTo(BouncyCastleEs256Verifiers.MAX_KEYS);
  }

  private static SignedJWT signedWithTheJdk(ECKey key, long token) throws Exception {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(key.getKeyID()).build(),
            new JWTClaimsSet.Builder().claim("fencing_token", token).build());
    jwt.sign(new ECDSASigner(key));
    return jwt;
  }
}
