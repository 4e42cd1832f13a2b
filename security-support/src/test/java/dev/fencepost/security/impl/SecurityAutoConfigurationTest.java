package dev.fencepost.security.impl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.EndpointAccess;
import dev.fencepost.security.FencepostRole;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.security.oauth2.client.autoconfigure.OAuth2ClientAutoConfiguration;
import org.springframework.boot.security.oauth2.server.resource.autoconfigure.servlet.OAuth2ResourceServerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.HttpMethod;
import org.springframework.security.oauth2.server.resource.web.authentication.BearerTokenAuthenticationFilter;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.util.ReflectionTestUtils;

class SecurityAutoConfigurationTest {

  private final WebApplicationContextRunner web =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ResourceServerSecurityAutoConfiguration.class,
                  SecurityAutoConfiguration.class,
                  ServletWebSecurityAutoConfiguration.class,
                  OAuth2ResourceServerAutoConfiguration.class));

  private final ApplicationContextRunner outbound =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  OAuth2ClientAutoConfiguration.class, BearerTokenSourceAutoConfiguration.class));

  private static final EndpointAccess RULES =
      rules -> rules.allow(HttpMethod.GET, "/x", FencepostRole.OPERATOR);

  @Test
  void webApplicationWithAnIssuerGetsTheFencepostChainOnly() {
    web.withPropertyValues(
            "spring.security.oauth2.resourceserver.jwt.jwk-set-uri=http://127.0.0.1:1/jwks")
        .withBean(EndpointAccess.class, () -> RULES)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBeansOfType(SecurityFilterChain.class))
                  .containsOnlyKeys("fencepostSecurityFilterChain");
            });
  }

  /**
   * The chain's bearer-token filter reads tokens with our resolver, not Spring's default one. The
   * filter and its converter keep them in private fields, read here by name: if Spring renames
   * them, this test fails and has to follow.
   */
  @Test
  void theChainReadsBearerTokensWithTheResolverWithoutARegularExpression() {
    web.withPropertyValues(
            "spring.security.oauth2.resourceserver.jwt.jwk-set-uri=http://127.0.0.1:1/jwks")
        .withBean(EndpointAccess.class, () -> RULES)
        .run(
            context -> {
              BearerTokenAuthenticationFilter filter =
                  context.getBean(SecurityFilterChain.class).getFilters().stream()
                      .filter(BearerTokenAuthenticationFilter.class::isInstance)
                      .map(BearerTokenAuthenticationFilter.class::cast)
                      .findFirst()
                      .orElseThrow();
              Object converter = ReflectionTestUtils.getField(filter, "authenticationConverter");
              assertThat(ReflectionTestUtils.getField(converter, "bearerTokenResolver"))
                  .isInstanceOf(BearerHeaderResolver.class);
            });
  }

  @Test
  void rulesWithoutAnIssuerRefuseToStart() {
    web.withBean(EndpointAccess.class, () -> RULES)
        .run(
            context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("jwk-set-uri"));
  }

  @Test
  void onlyGetMayBeOpenToAnyone() {
    web.withBean(
            EndpointAccess.class,
            () -> rules -> rules.open(org.springframework.http.HttpMethod.POST, "/keys"))
        .withPropertyValues(
            "spring.security.oauth2.resourceserver.jwt.jwk-set-uri=http://127.0.0.1:1/jwks")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("only GET may be open"));
  }

  @Test
  void nonWebApplicationGetsNoChain() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ResourceServerSecurityAutoConfiguration.class))
        .run(context -> assertThat(context).doesNotHaveBean(SecurityFilterChain.class));
  }

  @Test
  void noOutboundCredentialsMeansNoTokenSource() {
    outbound.run(context -> assertThat(context).doesNotHaveBean(BearerTokenSource.class));
  }

  @Test
  void clientRegistrationGivesClientCredentials() {
    assertTokenSource(ClientCredentialsTokenSource.class, clientRegistration());
  }

  @Test
  void tokenFileGivesTokenFileSource(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "abc\n");
    outbound
        .withPropertyValues("fencepost.security.client.token-file=" + file)
        .run(
            context ->
                assertThat(context.getBean(BearerTokenSource.class).currentToken())
                    .isEqualTo("abc"));
  }

  @Test
  void clientCredentialsWinOverATokenFile(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "abc");
    assertTokenSource(
        ClientCredentialsTokenSource.class,
        clientRegistration(),
        "fencepost.security.client.token-file=" + file);
  }

  @Test
  void tokenFileIsReReadWhenItChanges(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "first");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(60)));
    TokenFileSource source = new TokenFileSource(file);
    assertThat(source.currentToken()).isEqualTo("first");
    Files.writeString(file, "second");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now()));
    assertThat(source.currentToken()).isEqualTo("second");
  }

  /** With {@code properties} and {@code more} set, the outbound token source is a {@code type}. */
  private void assertTokenSource(Class<?> type, String[] properties, String... more) {
    outbound
        .withPropertyValues(properties)
        .withPropertyValues(more)
        .run(context -> assertThat(context).getBean(BearerTokenSource.class).isInstanceOf(type));
  }

  private static String[] clientRegistration() {
    return new String[] {
      "spring.security.oauth2.client.registration.fencepost.client-id=payout-worker",
      "spring.security.oauth2.client.registration.fencepost.client-secret=s3cret",
      "spring.security.oauth2.client.registration.fencepost.authorization-grant-type=client_credentials",
      "spring.security.oauth2.client.provider.fencepost.token-uri=http://127.0.0.1:1/oauth2/token"
    };
  }
}
