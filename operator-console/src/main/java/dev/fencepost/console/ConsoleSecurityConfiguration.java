package dev.fencepost.console;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.oauth2.client.oidc.userinfo.OidcUserRequest;
import org.springframework.security.oauth2.client.oidc.userinfo.OidcUserService;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;
import org.springframework.security.oauth2.client.registration.InMemoryClientRegistrationRepository;
import org.springframework.security.oauth2.client.userinfo.OAuth2UserService;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.core.oidc.user.DefaultOidcUser;
import org.springframework.security.oauth2.core.oidc.user.OidcUser;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Who may see the console (ADR 0185): a person signed in at the identity issuer whose access token
 * carries OPERATOR. An unauthenticated visitor gets the sign-in page only; a signed-in person
 * without the role gets a refusal page and nothing else. Sessions carry the person (a cookie), so
 * every form is CSRF-protected (Spring Security's default, kept on).
 */
@Configuration(proxyBeanMethods = false)
class ConsoleSecurityConfiguration {

  private static final Logger log = LoggerFactory.getLogger(ConsoleSecurityConfiguration.class);

  /** The client registration's id: Spring's login URLs name it. */
  static final String REGISTRATION = "fencepost";

  /** The role every page needs. */
  static final String OPERATOR = "OPERATOR";

  /**
   * The issuer's endpoints are named here rather than discovered: the console then starts while the
   * issuer is down and only sign-in waits for it.
   */
  @Bean
  ClientRegistrationRepository clientRegistrations(ConsoleProperties properties) {
    String issuer = trimSlash(properties.getIssuerUrl());
    return new InMemoryClientRegistrationRepository(
        ClientRegistration.withRegistrationId(REGISTRATION)
            .clientId(properties.getClientId())
            // Public: the console holds no secret; Spring Security adds PKCE for such a client.
            .clientAuthenticationMethod(ClientAuthenticationMethod.NONE)
            .authorizationGrantType(AuthorizationGrantType.AUTHORIZATION_CODE)
            .redirectUri("{baseUrl}/login/oauth2/code/{registrationId}")
            .scope("openid", "profile")
            .authorizationUri(issuer + "/oauth2/authorize")
            .tokenUri(issuer + "/oauth2/token")
            .jwkSetUri(issuer + "/oauth2/jwks")
            .issuerUri(issuer)
            .userNameAttributeName("sub")
            .clientName("Fencepost identity issuer")
            .build());
  }

  /** Access tokens as the services check them: the issuer's keys, its name, the audience. */
  @Bean
  JwtDecoder accessTokens(ConsoleProperties properties) {
    String issuer = trimSlash(properties.getIssuerUrl());
    NimbusJwtDecoder decoder = NimbusJwtDecoder.withJwkSetUri(issuer + "/oauth2/jwks").build();
    decoder.setJwtValidator(
        new DelegatingOAuth2TokenValidator<>(
            JwtValidators.createDefaultWithIssuer(issuer),
            jwt ->
                jwt.getAudience() != null && jwt.getAudience().contains(properties.getAudience())
                    ? OAuth2TokenValidatorResult.success()
                    : OAuth2TokenValidatorResult.failure(
                        new OAuth2Error("invalid_token", "wrong audience", null))));
    return decoder;
  }

  /**
   * The person's authorities are the roles of the access token the console will present for them
   * (not of the ID token): the console shows a page only to whoever the services would obey.
   */
  @Bean
  OAuth2UserService<OidcUserRequest, OidcUser> rolesFromTheAccessToken(JwtDecoder accessTokens) {
    OidcUserService delegate = new OidcUserService();
    return request -> {
      OidcUser user = delegate.loadUser(request);
      Jwt token;
      try {
        token = accessTokens.decode(request.getAccessToken().getTokenValue());
      } catch (JwtException e) {
        throw new OAuth2AuthenticationException(
            new OAuth2Error("invalid_token", "the issuer's access token is not valid", null), e);
      }
      List<GrantedAuthority> authorities = new ArrayList<>(user.getAuthorities());
      List<String> roles = token.getClaimAsStringList("roles");
      if (roles != null) {
        roles.forEach(role -> authorities.add(new SimpleGrantedAuthority("ROLE_" + role)));
      }
      log.atInfo()
          .addKeyValue("event", "console.signed_in")
          .addKeyValue("person", user.getSubject())
          .addKeyValue("roles", roles == null ? List.of() : roles)
          .log("{} signed in", user.getSubject());
      return new DefaultOidcUser(authorities, user.getIdToken(), user.getUserInfo(), "sub");
    };
  }

  @Bean
  SecurityFilterChain consoleSecurityFilterChain(HttpSecurity http) throws Exception {
    return http.authorizeHttpRequests(
            rules ->
                rules
                    .requestMatchers(EndpointRequest.to("health"))
                    .permitAll()
                    .requestMatchers("/login", "/css/**", "/favicon.ico", "/error")
                    .permitAll()
                    .requestMatchers("/forbidden")
                    .authenticated()
                    .anyRequest()
                    .hasRole(OPERATOR))
        .oauth2Login(
            login ->
                login
                    .loginPage("/login")
                    .failureHandler(
                        (request, response, failure) -> {
                          log.atWarn()
                              .addKeyValue("event", "console.sign_in_failed")
                              .addKeyValue("error", failure.getClass().getSimpleName())
                              .log("sign-in failed: {}", failure.getMessage());
                          response.sendRedirect(request.getContextPath() + "/login?failed");
                        }))
        .logout(logout -> logout.logoutSuccessUrl("/login?signedOut"))
        .exceptionHandling(
            e ->
                e.accessDeniedHandler(
                    (request, response, denied) -> {
                      log.atWarn()
                          .addKeyValue("event", "console.forbidden")
                          .addKeyValue("path", request.getRequestURI())
                          .addKeyValue(
                              "person",
                              request.getUserPrincipal() == null
                                  ? null
                                  : request.getUserPrincipal().getName())
                          .log("refused: not an operator, or no valid form token");
                      response.setStatus(403);
                      request.getRequestDispatcher("/forbidden").forward(request, response);
                    }))
        .build();
  }

  private static String trimSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
