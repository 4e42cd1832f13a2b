package dev.fencepost.security;

import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;

/**
 * This module's own minimal issuer for its tests (test-support's TestIssuer depends on this module,
 * so it cannot be used here): an EC key whose JWK set is served on a loopback port, and tokens
 * minted with Spring Security's {@link NimbusJwtEncoder}.
 */
final class LocalKeys implements AutoCloseable {

  private final ECKey key;
  private final HttpServer server;

  LocalKeys() {
    this.key = generate("test-key");
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    byte[] jwks = new JWKSet(key.toPublicJWK()).toString().getBytes(StandardCharsets.UTF_8);
    server.createContext(
        "/jwks",
        exchange -> {
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, jwks.length);
          try (OutputStream body = exchange.getResponseBody()) {
            body.write(jwks);
          }
        });
    server.start();
  }

  static ECKey generate(String kid) {
    try {
      return new ECKeyGenerator(Curve.P_256).keyID(kid).generate();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  String jwkSetUri() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/jwks";
  }

  String token(String subject, FencepostRole... roles) {
    return mint(key, subject, "fencepost", Instant.now(), Duration.ofMinutes(5), roles);
  }

  static String mint(
      ECKey signer,
      String subject,
      String audience,
      Instant issuedAt,
      Duration ttl,
      FencepostRole... roles) {
    NimbusJwtEncoder encoder = new NimbusJwtEncoder(new ImmutableJWKSet<>(new JWKSet(signer)));
    JwtClaimsSet.Builder claims =
        JwtClaimsSet.builder()
            .subject(subject)
            .audience(List.of(audience))
            .issuedAt(issuedAt)
            .expiresAt(issuedAt.plus(ttl));
    if (roles.length > 0) {
      claims.claim("roles", Arrays.stream(roles).map(Enum::name).toList());
    }
    JwsHeader header = JwsHeader.with(SignatureAlgorithm.ES256).keyId(signer.getKeyID()).build();
    return encoder.encode(JwtEncoderParameters.from(header, claims.build())).getTokenValue();
  }

  ECKey key() {
    return key;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
