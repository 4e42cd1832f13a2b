package dev.fencepost.testsupport.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.security.FencepostRole;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

class TestIssuerTest {

  static final TestIssuer issuer = TestIssuer.start();
  static final JwtDecoder decoder =
      NimbusJwtDecoder.withJwkSetUri(issuer.jwkSetUri())
          .jwsAlgorithm(SignatureAlgorithm.ES256)
          .build();

  @AfterAll
  static void stop() {
    issuer.close();
  }

  @Test
  void tokenOfAWorkloadDecodesAgainstTheServedKeysWithItsRoleAndAudience() {
    Jwt jwt = decoder.decode(issuer.tokens(FencepostRole.PAYOUT_WORKER).currentToken());
    assertThat(jwt.getSubject()).isEqualTo("payout-worker");
    assertThat(jwt.getAudience()).containsExactly("fencepost");
    assertThat(jwt.getClaimAsStringList("roles")).containsExactly("PAYOUT_WORKER");
  }

  @Test
  void forgedTokenDoesNotVerify() {
    String forged = issuer.forged("payout-worker", FencepostRole.PAYOUT_WORKER);
    assertThatThrownBy(() -> decoder.decode(forged))
        .isInstanceOf(JwtException.class)
        .hasMessageContaining("signature");
  }
}
