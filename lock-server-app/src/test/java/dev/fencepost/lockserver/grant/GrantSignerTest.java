package dev.fencepost.lockserver.grant;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jwt.SignedJWT;
import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import java.security.Security;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The grant signature's provider (ADR 0191), without a server: see SignedGrantsTest for those. */
class GrantSignerTest {

  private static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");

  @Test
  void grantsAreSignedWithBouncyCastleOnItsOwnKeyFormWithoutRegisteringItJvmWide()
      throws Exception {
    GrantSigner signer =
        GrantSigner.of(new JWKSet(key("k1")), Clock.fixed(NOW, ZoneOffset.UTC), "t");

    ECDSASigner jws = (ECDSASigner) signer.jwsSigner();
    // Deliberately broken (the provider left unset, or a JDK key handed to it) these fail.
    assertThat(jws.getJCAContext().getProvider().getName()).isEqualTo("BC");
    assertThat(jws.getPrivateKey().getClass().getName()).startsWith("org.bouncycastle.");
    assertThat(Security.getProvider("BC")).isNull();
  }

  @Test
  void aBouncyCastleSignatureVerifiesWithTheJdkProviderAsAnyVerifierWould() throws Exception {
    ECKey key = key("k1");
    GrantSigner signer = GrantSigner.of(new JWKSet(key), Clock.fixed(NOW, ZoneOffset.UTC), "t");

    for (long token = 1; token <= 20; token++) {
      LockGrant signed = signer.sign(grant(token));
      SignedJWT jwt = SignedJWT.parse(signed.signedGrant());
      // The JDK's own arithmetic (no provider set): the format did not change for any verifier.
      assertThat(jwt.verify(new ECDSAVerifier(key.toPublicJWK()))).isTrue();
      assertThat(jwt.getJWTClaimsSet().getLongClaim(GrantSigner.TOKEN)).isEqualTo(token);
    }
  }

  @Test
  void aSignatureDoesNotVerifyUnderAnotherKey() throws Exception {
    GrantSigner signer =
        GrantSigner.of(new JWKSet(key("k1")), Clock.fixed(NOW, ZoneOffset.UTC), "t");

    SignedJWT jwt = SignedJWT.parse(signer.sign(grant(7)).signedGrant());

    assertThat(jwt.verify(new ECDSAVerifier(key("k1").toPublicJWK()))).isFalse();
  }

  private static ECKey key(String kid) throws Exception {
    return new ECKeyGenerator(Curve.P_256).keyID(kid).generate();
  }

  private static LockGrant grant(long token) {
    return new LockGrant(
        LockKey.of("payout:acc-1"),
        "worker-1",
        SessionId.of("s-1"),
        FencingToken.of(token),
        NOW,
        NOW.plusSeconds(30));
  }
}
