package dev.fencepost.issuer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.server.authorization.OAuth2TokenType;
import org.springframework.security.oauth2.server.authorization.client.InMemoryRegisteredClientRepository;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClient;
import org.springframework.security.oauth2.server.authorization.client.RegisteredClientRepository;
import org.springframework.security.oauth2.server.authorization.settings.OAuth2TokenFormat;
import org.springframework.security.oauth2.server.authorization.settings.TokenSettings;
import org.springframework.security.oauth2.server.authorization.token.JwtEncodingContext;
import org.springframework.security.oauth2.server.authorization.token.OAuth2TokenCustomizer;
import org.springframework.security.web.SecurityFilterChain;

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
    log.atInfo()
        .addKeyValue("event", "issuer.clients.registered")
        .addKeyValue("clients", properties.getClients().keySet())
        .addKeyValue("tokenTtl", properties.getTokenTtl().toString())
        .log("issuer clients registered");
    return new InMemoryRegisteredClientRepository(clients);
  }

  /** Every access token names its audience and carries the client's roles. */
  @Bean
  OAuth2TokenCustomizer<JwtEncodingContext> rolesAndAudience(IssuerProperties properties) {
    return context -> {
      if (!OAuth2TokenType.ACCESS_TOKEN.equals(context.getTokenType())) {
        return;
      }
      IssuerProperties.Client client =
          properties.getClients().get(context.getRegisteredClient().getClientId());
      context
          .getClaims()
          .audience(List.of(properties.getAudience()))
          .claim("roles", List.copyOf(client == null ? List.of() : client.getRoles()));
    };
  }

  /**
   * The authorization server's endpoints (token, JWK set, metadata), management health open, and
   * nothing else. No browser flows exist here, so no session, form login or CSRF token: every
   * client authenticates on each token request with its secret.
   */
  @Bean
  SecurityFilterChain issuerSecurityFilterChain(HttpSecurity http) throws Exception {
    return http.oauth2AuthorizationServer(server -> {})
        .csrf(AbstractHttpConfigurer::disable)
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .authorizeHttpRequests(
            rules ->
                rules
                    .requestMatchers(EndpointRequest.to("health"))
                    .permitAll()
                    .requestMatchers("/oauth2/jwks", "/.well-known/**")
                    .permitAll()
                    .requestMatchers("/oauth2/token")
                    .authenticated()
                    .anyRequest()
                    .denyAll())
        .build();
  }
}
