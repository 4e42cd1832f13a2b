package dev.fencepost.security.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import dev.fencepost.security.FencepostSecurityProperties;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;

/**
 * A verified bearer token's repeats are answered from memory (ADR 0189), and nothing the signature
 * check refuses, nothing expired and nothing older than the TTL is: the real Nimbus decoder does
 * the verifying, on the test's clock, and the test counts how often it is asked.
 */
class VerifiedTokensTest {

  private static final Instant START = Instant.parse("2026-12-02T12:00:00Z");

  private final MutableClock clock = new MutableClock(START);
  private final ECKey issuer = key("issuer");
  private final AtomicInteger verifications = new AtomicInteger();

  @Test
  void aVerifiedTokensRepeatsAreAnsweredFromMemoryWithTheSameClaims() {
    VerifiedTokens tokens = tokens(Duration.ofSeconds(60));
    String token = mint(issuer, Duration.ofMinutes(5));

    Jwt first = tokens.decode(token);
    Jwt again = tokens.decode(token);

    assertThat(verifications).hasValue(1);
    assertThat(again.getSubject()).isEqualTo(first.getSubject()).isEqualTo("worker-1");
    assertThat(again.getTokenValue()).isEqualTo(token);
  }

  @Test
  void aTokenSignedByAnotherKeyIsRefusedEveryTimeAndNeverRemembered() {
    VerifiedTokens tokens = tokens(Duration.ofSeconds(60));
    String forged = mint(key("someone-else"), Duration.ofMinutes(5));

    assertThatThrownBy(() -> tokens.decode(forged)).isInstanceOf(JwtException.class);
    assertThatThrownBy(() -> tokens.decode(forged)).isInstanceOf(JwtException.class);

    assertThat(verifications).hasValue(2);
    assertThat(tokens.remembered()).isZero();
  }

  @Test
  void aTamperedCopyOfARememberedTokenIsVerifiedAndRefused() {
    VerifiedTokens tokens = tokens(Duration.ofSeconds(60));
    String token = mint(issuer, Duration.ofMinutes(5));
    tokens.decode(token);
    String[] parts = token.split("\\.");
    String otherClaims =
        java.util.Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(
                "{\"sub\":\"operator\",\"aud\":[\"fencepost\"],\"exp\":1900000000}".getBytes());
    String tampered = parts[0] + "." + otherClaims + "." + parts[2];

    assertThatThrownBy(() -> tokens.decode(tampered)).isInstanceOf(BadJwtException.class);
    assertThat(verifications).hasValue(2);
  }

  @Test
  void aRememberedTokenIsRefusedOnceItsExpiryHasPassed() {
    VerifiedTokens tokens = tokens(Duration.ofMinutes(5));
    String token = mint(issuer, Duration.ofSeconds(30));
    tokens.decode(token);

    clock.advance(Duration.ofSeconds(31));

    assertThatThrownBy(() -> tokens.decode(token))
        .as("past its exp the token is the delegate's to judge again, and it has expired")
        .isInstanceOf(JwtException.class)
        .hasMessageContaining("expired");
    assertThat(verifications).hasValue(2);
  }

  @Test
  void aRememberedTokenIsVerifiedAgainAfterTheTtlEvenWhileItIsStillValid() {
    VerifiedTokens tokens = tokens(Duration.ofSeconds(60));
    String token = mint(issuer, Duration.ofMinutes(5));
    tokens.decode(token);

    clock.advance(Duration.ofSeconds(59));
    tokens.decode(token);
    assertThat(verifications).as("within the TTL: from memory").hasValue(1);

    clock.advance(Duration.ofSeconds(2));
    tokens.decode(token);
    assertThat(verifications).as("past the TTL: verified again").hasValue(2);
  }

  @Test
  void withATtlOfZeroEveryRequestIsVerified() {
    VerifiedTokens tokens = tokens(Duration.ZERO);
    String token = mint(issuer, Duration.ofMinutes(5));

    tokens.decode(token);
    tokens.decode(token);
    tokens.decode(token);

    assertThat(verifications).hasValue(3);
  }

  @Test
  void aVerifiedTokenTtlOutsideZeroToFiveMinutesIsRefusedWithTheSettingsName() {
    FencepostSecurityProperties properties = new FencepostSecurityProperties();
    assertThat(properties.getVerifiedTokenTtl()).isEqualTo(Duration.ofSeconds(60));

    assertThatThrownBy(() -> properties.setVerifiedTokenTtl(Duration.ofMinutes(6)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fencepost.security.verified-token-ttl");
    assertThatThrownBy(() -> properties.setVerifiedTokenTtl(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    properties.setVerifiedTokenTtl(Duration.ZERO);
    assertThat(properties.getVerifiedTokenTtl()).isZero();
  }

  private VerifiedTokens tokens(Duration ttl) {
    DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
    processor.setJWSKeySelector(
        new JWSVerificationKeySelector<>(
            JWSAlgorithm.ES256, new ImmutableJWKSet<>(new JWKSet(issuer.toPublicJWK()))));
    // Time is judged by Spring's validator on the test's clock, as Boot's decoder does it.
    processor.setJWTClaimsSetVerifier((claims, context) -> {});
    NimbusJwtDecoder nimbus = new NimbusJwtDecoder(processor);
    JwtTimestampValidator time = new JwtTimestampValidator(Duration.ZERO);
    time.setClock(clock);
    nimbus.setJwtValidator(time);
    JwtDecoder counted =
        token -> {
          verifications.incrementAndGet();
          return nimbus.decode(token);
        };
    return new VerifiedTokens(counted, ttl, 100, clock);
  }

  private String mint(ECKey signer, Duration ttl) {
    NimbusJwtEncoder encoder = new NimbusJwtEncoder(new ImmutableJWKSet<>(new JWKSet(signer)));
    JwtClaimsSet claims =
        JwtClaimsSet.builder()
            .subject("worker-1")
            .audience(List.of("fencepost"))
            .issuedAt(clock.instant())
            .expiresAt(clock.instant().plus(ttl))
            .build();
    JwsHeader header = JwsHeader.with(SignatureAlgorithm.ES256).keyId(signer.getKeyID()).build();
    return encoder.encode(JwtEncoderParameters.from(header, claims)).getTokenValue();
  }

  private static ECKey key(String kid) {
    try {
      return new ECKeyGenerator(Curve.P_256).keyID(kid).generate();
    } catch (com.nimbusds.jose.JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The test's clock: the decoder's time check and the memory's both read it. */
  private static final class MutableClock extends Clock {
    private volatile Instant now;

    MutableClock(Instant start) {
      this.now = start;
    }

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }
}
