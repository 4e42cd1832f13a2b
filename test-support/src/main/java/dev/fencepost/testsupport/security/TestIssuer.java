package dev.fencepost.testsupport.security;

import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.sun.net.httpserver.HttpServer;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;

/**
 * An identity issuer for in-process tests: an EC key, tokens for any subject and roles minted with
 * Spring Security's {@link NimbusJwtEncoder}, and the public key served as a JWK set on a loopback
 * port. Point a service under test at {@link #jwkSetUri()} ({@link #resourceServerArgs()}) and call
 * it with {@link #tokens(FencepostRole)}.
 *
 * <pre>{@code
 * static final TestIssuer issuer = TestIssuer.start();   // closed in @AfterAll
 * LockServerApplication.application().run(issuer.resourceServerArgs().toArray(String[]::new));
 * String token = issuer.token("payout-worker", FencepostRole.PAYOUT_WORKER);
 * }</pre>
 */
public final class TestIssuer implements AutoCloseable {

  /** The audience the services accept by default ({@code fencepost.security.audience}). */
  public static final String AUDIENCE = "fencepost";

  private final ECKey key;
  private final NimbusJwtEncoder encoder;
  private final HttpServer server;

  private TestIssuer() {
    this.key = newKey(UUID.randomUUID().toString());
    this.encoder = new NimbusJwtEncoder(new ImmutableJWKSet<>(new JWKSet(key)));
    byte[] jwks = new JWKSet(key.toPublicJWK()).toString().getBytes(StandardCharsets.UTF_8);
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext(
        "/oauth2/jwks",
        exchange -> {
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, jwks.length);
          try (OutputStream body = exchange.getResponseBody()) {
            body.write(jwks);
          }
        });
    server.start();
  }

  /** A new issuer with its own key, serving its JWK set until closed. */
  public static TestIssuer start() {
    return new TestIssuer();
  }

  /** Where its JWK set is served. */
  public String jwkSetUri() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/oauth2/jwks";
  }

  /** Command-line arguments that make a service accept this issuer's tokens. */
  public List<String> resourceServerArgs() {
    return List.of("--spring.security.oauth2.resourceserver.jwt.jwk-set-uri=" + jwkSetUri());
  }

  /** The same as properties (for {@code @DynamicPropertySource} or a builder's properties). */
  public Map<String, Object> resourceServerProperties() {
    return Map.of("spring.security.oauth2.resourceserver.jwt.jwk-set-uri", jwkSetUri());
  }

  /** A token valid for 5 minutes for {@code subject} with {@code roles}, audience fencepost. */
  public String token(String subject, FencepostRole... roles) {
    return mint(subject, AUDIENCE, Instant.now(), Duration.ofMinutes(5), roles);
  }

  /**
   * A token with every claim chosen, signed by this issuer: an expired one ({@code issuedAt} far
   * enough in the past), one for another audience, one without roles.
   */
  public String mint(
      String subject, String audience, Instant issuedAt, Duration ttl, FencepostRole... roles) {
    return mint(encoder, key.getKeyID(), subject, audience, issuedAt, ttl, roles);
  }

  /**
   * A token signed by a key this issuer does not publish, under this issuer's key id: what a forger
   * without the private key could produce.
   */
  public String forged(String subject, FencepostRole... roles) {
    ECKey other = newKey(key.getKeyID());
    NimbusJwtEncoder forger = new NimbusJwtEncoder(new ImmutableJWKSet<>(new JWKSet(other)));
    return mint(
        forger, key.getKeyID(), subject, AUDIENCE, Instant.now(), Duration.ofMinutes(5), roles);
  }

  /** Fresh tokens for {@code subject} with {@code roles}, one per call. */
  public BearerTokenSource tokens(String subject, FencepostRole... roles) {
    return () -> token(subject, roles);
  }

  /**
   * Fresh tokens of the workload with {@code role}; its subject is the role's name in lower case
   * with hyphens ({@code payout-worker}), as the local issuer names its clients.
   */
  public BearerTokenSource tokens(FencepostRole role) {
    return tokens(subjectOf(role), role);
  }

  /** The subject {@link #tokens(FencepostRole)} uses for {@code role}. */
  public static String subjectOf(FencepostRole role) {
    return role == FencepostRole.RECONCILER
        ? "reconciler"
        : role.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private static String mint(
      NimbusJwtEncoder encoder,
      String keyId,
      String subject,
      String audience,
      Instant issuedAt,
      Duration ttl,
      FencepostRole... roles) {
    JwtClaimsSet.Builder claims =
        JwtClaimsSet.builder()
            .subject(subject)
            .audience(List.of(audience))
            .issuedAt(issuedAt)
            .expiresAt(issuedAt.plus(ttl))
            .id(UUID.randomUUID().toString());
    if (roles.length > 0) {
      claims.claim("roles", Arrays.stream(roles).map(Enum::name).toList());
    }
    JwsHeader header = JwsHeader.with(SignatureAlgorithm.ES256).keyId(keyId).build();
    return encoder.encode(JwtEncoderParameters.from(header, claims.build())).getTokenValue();
  }

  private static ECKey newKey(String keyId) {
    try {
      return new ECKeyGenerator(Curve.P_256).keyID(keyId).generate();
    } catch (com.nimbusds.jose.JOSEException e) {
      throw new IllegalStateException(e);
    }
  }
}
