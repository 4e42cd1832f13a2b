package dev.fencepost.issuer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.core.oidc.OidcScopes;
import org.springframework.security.oauth2.core.oidc.endpoint.OidcParameterNames;
import org.springframework.security.oauth2.server.authorization.OAuth2TokenType;
import org.springframework.security.oauth2.server.authorization.client.InMemoryRegisteredClientRepository;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClient;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClientRepository;
import org.springframework.security.oauth2.server.authorization.settings.ClientSettings;
import org.springframework.security.oauth2.server.authorization.settings.OAuth2TokenFormat;
import org.springframework.security.oauth2.server.authorization.settings.TokenSettings;
import org.springframework.security.oauth2.server.authorization.token.JwtEncodingContext;
import org.springframework.security.oauth2.server.authorization.token.OAuth2TokenCustomizer;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.LoginUrlAuthenticationEntryPoint;
import org.springframework.security.web.util.matcher.MediaTypeRequestMatcher;

/**
 * The issuer's clients, its token contents and its one filter chain. The signing key is Boot's
 * default: an RSA key generated at each start (ADR 0130).
 */
@Configuration(proxyBeanMethods = false)
class IssuerConfiguration {

  private static final Logger log = LoggerFactory.getLogger(IssuerConfiguration.class);

  /** Secrets are kept only encoded ({bcrypt} by default), as the client authentication checks. */
  @Bean
  PasswordEncoder passwordEncoder() {
    return PasswordEncoderFactories.createDelegatingPasswordEncoder();
  }

  @Bean
  RegisteredClientRepository registeredClients(
      IssuerProperties properties, PasswordEncoder encoder) {
    if (properties.getClients().isEmpty()) {
      throw new IllegalStateException("no client configured under fencepost.issuer.clients");
    }
    List<String> withoutSecret = new ArrayList<>();
    List<RegisteredClient> clients = new ArrayList<>();
    for (Map.Entry<String, IssuerProperties.Client> entry : properties.getClients().entrySet()) {
      String secret = entry.getValue().getSecret();
      if (secret == null || secret.isBlank()) {
        withoutSecret.add(entry.getKey());
        continue;
      }
      if (entry.getValue().getRoles().isEmpty()) {
        throw new IllegalStateException("client " + entry.getKey() + " has no roles");
      }
      clients.add(
          RegisteredClient.withId(UUID.randomUUID().toString())
              .clientId(entry.getKey())
              .clientSecret(encoder.encode(secret))
              .clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_BASIC)
              .clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_POST)
              .authorizationGrantType(AuthorizationGrantType.CLIENT_CREDENTIALS)
              .tokenSettings(
                  TokenSettings.builder()
                      .accessTokenFormat(OAuth2TokenFormat.SELF_CONTAINED)
                      .accessTokenTimeToLive(properties.getTokenTtl())
                      .build())
              .build());
    }
    if (!withoutSecret.isEmpty()) {
      throw new IllegalStateException(
          "no secret for client(s) "
              + withoutSecret
              + ": give fencepost.issuer.clients.<id>.secret in the environment or on the command"
              + " line (docs/security.md)");
    }
    IssuerProperties.Console console = properties.getConsole();
    if (!console.getRedirectUris().isEmpty()) {
      if (properties.getUsers().isEmpty()) {
        throw new IllegalStateException(
            "the console client (fencepost.issuer.console.redirect-uris) needs people to sign in:"
                + " configure fencepost.issuer.users.<name>");
      }
      // Public: the console holds no secret of its own, so nothing but a person signing in in
      // the browser can obtain a token through it; PKCE binds the code to that browser session.
      RegisteredClient.Builder client =
          RegisteredClient.withId(UUID.randomUUID().toString())
              .clientId(console.getClientId())
              .clientAuthenticationMethod(ClientAuthenticationMethod.NONE)
              .authorizationGrantType(AuthorizationGrantType.AUTHORIZATION_CODE)
              .scope(OidcScopes.OPENID)
              .scope(OidcScopes.PROFILE)
              .clientSettings(
                  ClientSettings.builder()
                      .requireProofKey(true)
                      .requireAuthorizationConsent(false)
                      .build())
              .tokenSettings(
                  TokenSettings.builder()
                      .accessTokenFormat(OAuth2TokenFormat.SELF_CONTAINED)
                      .accessTokenTimeToLive(properties.getTokenTtl())
                      .build());
      console.getRedirectUris().forEach(client::redirectUri);
      clients.add(client.build());
      log.atInfo()
          .addKeyValue("event", "issuer.console_client.registered")
          .addKeyValue("clientId", console.getClientId())
          .addKeyValue("redirectUris", console.getRedirectUris())
          .log("console client registered");
    }
    log.atInfo()
        .addKeyValue("event", "issuer.clients.registered")
        .addKeyValue("clients", properties.getClients().keySet())
        .addKeyValue("tokenTtl", properties.getTokenTtl().toString())
        .log("issuer clients registered");
    return new InMemoryRegisteredClientRepository(clients);
  }

  /**
   * Every access token names its audience and carries its subject's roles: a workload client's for
   * client credentials, the signed-in person's for the console's authorization code (the subject is
   * then the person, ADR 0185). A person's ID token carries the same roles, so the console can
   * decide what to show without a second call.
   */
  @Bean
  OAuth2TokenCustomizer<JwtEncodingContext> rolesAndAudience(IssuerProperties properties) {
    return context -> {
      boolean person =
          AuthorizationGrantType.AUTHORIZATION_CODE.equals(context.getAuthorizationGrantType());
      Set<String> roles;
      if (person) {
        IssuerProperties.User user = properties.getUsers().get(context.getPrincipal().getName());
        roles = user == null ? Set.of() : user.getRoles();
      } else {
        IssuerProperties.Client client =
            properties.getClients().get(context.getRegisteredClient().getClientId());
        roles = client == null ? Set.of() : client.getRoles();
      }
      if (OAuth2TokenType.ACCESS_TOKEN.equals(context.getTokenType())) {
        context
            .getClaims()
            .audience(List.of(properties.getAudience()))
            .claim("roles", List.copyOf(roles));
      } else if (person && OidcParameterNames.ID_TOKEN.equals(context.getTokenType().getValue())) {
        context.getClaims().claim("roles", List.copyOf(roles));
      }
    };
  }

  /**
   * The people who may sign in, with their passwords as given: already encoded. A plain or {@code
   * {noop}} password would sit in the environment as it is typed, so it is refused.
   */
  @Bean
  UserDetailsService people(IssuerProperties properties) {
    List<UserDetails> people = new ArrayList<>();
    for (Map.Entry<String, IssuerProperties.User> entry : properties.getUsers().entrySet()) {
      String password = entry.getValue().getPassword();
      if (password == null || !ENCODED.matcher(password).matches()) {
        throw new IllegalStateException(
            "user "
                + entry.getKey()
                + " needs an encoded password ({bcrypt}..., {argon2}...) in"
                + " fencepost.issuer.users."
                + entry.getKey()
                + ".password, given at run time (docs/security.md)");
      }
      people.add(
          User.withUsername(entry.getKey())
              .password(password)
              .authorities(
                  entry.getValue().getRoles().stream().map(r -> "ROLE_" + r).toArray(String[]::new))
              .build());
    }
    log.atInfo()
        .addKeyValue("event", "issuer.users.registered")
        .addKeyValue("users", properties.getUsers().size())
        .log("issuer users registered");
    return new InMemoryUserDetailsManager(people);
  }

  /** A request that names HTML in its Accept header; one without (a script's) does not count. */
  private static MediaTypeRequestMatcher asksForHtml() {
    MediaTypeRequestMatcher html = new MediaTypeRequestMatcher(MediaType.TEXT_HTML);
    html.setIgnoredMediaTypes(Set.of(MediaType.ALL));
    return html;
  }

  /** An algorithm prefix other than {noop}, then the encoded value. */
  private static final Pattern ENCODED = Pattern.compile("\\{(?!noop\\})[a-z0-9_-]+\\}.+");

  /**
   * The authorization server's endpoints (token, JWK set, metadata, and for people the
   * authorization endpoint with OpenID Connect), the sign-in form, management health open, and
   * nothing else. Workload clients authenticate on each token request with their secret; a person
   * signs in on the form (its CSRF token protects it) and the issuer keeps a session only for that.
   */
  @Bean
  SecurityFilterChain issuerSecurityFilterChain(HttpSecurity http) throws Exception {
    return http.oauth2AuthorizationServer(server -> server.oidc(Customizer.withDefaults()))
        .formLogin(Customizer.withDefaults())
        // A browser (it asks for HTML) that is not signed in goes to the form; any other caller
        // gets 401 as before.
        .exceptionHandling(
            e ->
                e.defaultAuthenticationEntryPointFor(
                    new LoginUrlAuthenticationEntryPoint("/login"), asksForHtml()))
        .authorizeHttpRequests(
            rules ->
                rules
                    .requestMatchers(EndpointRequest.to("health"))
                    .permitAll()
                    .requestMatchers("/oauth2/jwks", "/.well-known/**", "/login", "/error")
                    .permitAll()
                    .requestMatchers("/oauth2/token", "/oauth2/authorize", "/userinfo")
                    .authenticated()
                    .anyRequest()
                    .denyAll())
        .build();
  }
}
