package dev.fencepost.lockserver.grant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.fencepost.launcher.GrantSigningKeys;
import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.lockserver.TestIdentities;
import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.lockserver.http.LockServerClient.Response;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The lock server signs every grant it hands out and publishes the keys that verify them (ADRs 0135
 * and 0136): only public parts, current and previous keys alike; without a signing key it does not
 * start.
 */
@Tag("FR-17")
class SignedGrantsTest {

  @RegisterExtension
  static EmbeddedPostgresExtension lockdb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/lockdb/db.changelog-master.yaml");

  /** A previous key and, after rotation, the current one. */
  private static GrantSigningKeys keys;

  private static ConfigurableApplicationContext server;
  private static LockServerClient client;

  @BeforeAll
  static void start() throws Exception {
    keys = GrantSigningKeys.generate(Files.createTempDirectory("signed-grants-test-")).rotate();
    server = LockServerApplication.application().run(args(keys.lockServerArg()));
    client = LockServerClient.of(server);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void grantKeysPublishesCurrentAndPreviousKeysWithPublicPartsOnlyToAnyCallerWithoutAToken()
      throws Exception {
    Response response = client.anonymous().get("/v1/grant-keys");

    assertThat(response.status()).isEqualTo(200);
    assertThat(response.contentType()).startsWith("application/jwk-set+json");
    JWKSet published = JWKSet.parse(response.body());
    assertThat(published.getKeys())
        .extracting(k -> k.getKeyID())
        .containsExactlyInAnyOrder(keys.keys().get(0).getKeyID(), keys.keys().get(1).getKeyID());
    assertThat(published.getKeys()).noneMatch(k -> k.isPrivate());
    // The private scalar of an EC JWK is "d": it must never leave the server.
    assertThat(response.json().get("keys").values())
        .allSatisfy(k -> assertThat(k.has("d")).isFalse());
  }

  @Test
  void anAcquiredGrantCarriesItsSignatureWhichThePublishedCurrentKeyVerifies() throws Exception {
    String session = client.newSession("signed-acquire");
    Response grant = client.acquire("payout:acc-signed-1", session, 0);

    assertThat(grant.status()).isEqualTo(200);
    SignedJWT jwt = SignedJWT.parse(grant.json().get("signedGrant").asString());
    assertThat(jwt.getHeader().getKeyID()).isEqualTo(keys.current().getKeyID());
    assertThat(jwt.getHeader().getType().getType()).isEqualTo("fencepost-grant+jwt");
    assertThat(jwt.verify(new ECDSAVerifier(publishedKey(jwt.getHeader().getKeyID())))).isTrue();
    JWTClaimsSet claims = jwt.getJWTClaimsSet();
    assertThat(claims.getStringClaim("lock_key")).isEqualTo("payout:acc-signed-1");
    assertThat(claims.getLongClaim("fencing_token")).isEqualTo(grant.token());
    assertThat(claims.getStringClaim("sid")).isEqualTo(session);
    assertThat(claims.getExpirationTime().toInstant())
        .isEqualTo(secondsOf(grant.json().get("expiresAt").asString()));
    assertThat(claims.getIssueTime()).isNotNull();
  }

  @Test
  void aRenewAnswersWithAFreshSignedGrantForTheSameTokenAndTheRenewedExpiry() throws Exception {
    String session = client.newSession("signed-renew");
    Response acquired = client.acquire("payout:acc-signed-2", session, 0);
    Response renewed = client.renew("payout:acc-signed-2", session, acquired.token());

    assertThat(renewed.status()).isEqualTo(200);
    String first = acquired.json().get("signedGrant").asString();
    String fresh = renewed.json().get("signedGrant").asString();
    assertThat(fresh).isNotEqualTo(first);
    SignedJWT jwt = SignedJWT.parse(fresh);
    assertThat(jwt.verify(new ECDSAVerifier(publishedKey(jwt.getHeader().getKeyID())))).isTrue();
    assertThat(jwt.getJWTClaimsSet().getLongClaim("fencing_token")).isEqualTo(acquired.token());
    assertThat(jwt.getJWTClaimsSet().getExpirationTime().toInstant())
        .isEqualTo(secondsOf(renewed.json().get("expiresAt").asString()));
  }

  @Test
  void withoutASigningKeyTheServerRefusesToStart() {
    assertThatThrownBy(() -> LockServerApplication.application().run(args()).close())
        .hasStackTraceContaining("fencepost.lock.grant-signing.jwk-set-file is required");
  }

  @Test
  void withOnlyPublicKeysTheServerRefusesToStart() {
    String publicOnly =
        "--fencepost.lock.grant-signing.jwk-set-file=" + keys.publicFile().toString();

    assertThatThrownBy(() -> LockServerApplication.application().run(args(publicOnly)).close())
        .hasStackTraceContaining("must include its private part");
  }

  private static ECKey publishedKey(String kid) throws Exception {
    JWKSet published = JWKSet.parse(client.get("/v1/grant-keys").body());
    return (ECKey) published.getKeyByKeyId(kid);
  }

  private static Instant secondsOf(String instant) {
    return Instant.ofEpochSecond(Instant.parse(instant).getEpochSecond());
  }

  private static String[] args(String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--server.port=0",
                "--management.server.port=0",
                "--server.address=127.0.0.1",
                "--spring.main.banner-mode=off",
                "--spring.datasource.url=" + lockdb.jdbcUrl(),
                "--spring.datasource.username=" + lockdb.database().runtime().username(),
                "--spring.datasource.password=" + lockdb.database().runtime().password(),
                "--logging.structured.format.console=",
                TestIdentities.serverArg()));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }
}
