package dev.fencepost.security.impl;

import dev.fencepost.security.EndpointAccess;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.security.FencepostSecurityProperties;
import io.micrometer.observation.ObservationPredicate;
import jakarta.servlet.DispatcherType;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.security.oauth2.client.autoconfigure.servlet.OAuth2ClientWebSecurityAutoConfiguration;
import org.springframework.boot.security.oauth2.server.resource.autoconfigure.servlet.JwkSetUriJwtDecoderBuilderCustomizer;
import org.springframework.boot.security.oauth2.server.resource.autoconfigure.servlet.OAuth2ResourceServerAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.WebSecurityCustomizer;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtAudienceValidator;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationConverter;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.security.web.firewall.StrictHttpFirewall;

/**
 * The inbound side of a Fencepost servlet application: a stateless bearer-JWT resource server, deny
 * by default.
 *
 * <ul>
 *   <li>Tokens are validated by Boot's resource server ({@code
 *       spring.security.oauth2.resourceserver.jwt.jwk-set-uri}, {@code issuer-uri}): signature,
 *       expiry, issuer when set, and here the audience ({@code fencepost.security.audience}); a
 *       token already verified is accepted again from memory until its expiry, for at most {@code
 *       fencepost.security.verified-token-ttl} ({@link VerifiedTokens}).
 *   <li>Authorities come from the roles claim and the subject-roles map; the principal's name from
 *       {@code fencepost.security.principal-claim}.
 *   <li>Order of rules: error dispatches pass (the original request was already authorized);
 *       management {@code health} and {@code prometheus} are open when, and only when, the
 *       management endpoints have a port of their own ({@code management.server.port}), so probes
 *       and the scrape reach them there and never on the application's port; every other management
 *       endpoint, and {@code health} and {@code prometheus} too when they share the application's
 *       port, needs OPERATOR; then the application's {@link EndpointAccess} rules; anything else is
 *       denied.
 *   <li>The token is read from the {@code Authorization} header alone, never from a query or form
 *       parameter, by {@link BearerHeaderResolver}: Spring's grammar without its regular
 *       expression.
 *   <li>Refusals are problem+json ({@link RefusalHandlers}).
 * </ul>
 *
 * Ordered before Boot's web security auto-configurations, which back off once this chain exists (no
 * form login, no generated password, no OAuth2 login).
 */
@AutoConfiguration(
    before = {
      ServletWebSecurityAutoConfiguration.class,
      ManagementWebSecurityAutoConfiguration.class,
      OAuth2ResourceServerAutoConfiguration.class,
      OAuth2ClientWebSecurityAutoConfiguration.class
    })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({HttpSecurity.class, JwtDecoder.class})
@EnableConfigurationProperties(FencepostSecurityProperties.class)
public final class ResourceServerSecurityAutoConfiguration {

  private static final Logger log =
      LoggerFactory.getLogger(ResourceServerSecurityAutoConfiguration.class);

  /** Distinct tokens remembered as verified; each calling workload presents one at a time. */
  static final long MAX_VERIFIED_TOKENS = 10_000;

  /** Boot's JWT decoder adds this to its validators: a token for another service is refused. */
  @Bean
  OAuth2TokenValidator<Jwt> fencepostAudienceValidator(FencepostSecurityProperties properties) {
    return new JwtAudienceValidator(properties.getAudience());
  }

  /**
   * The algorithms our issuers sign with: RS256 (Spring Authorization Server's generated key,
   * Kubernetes service-account tokens) and ES256 (the test issuer's EC key). Boot's default is
   * RS256 alone.
   */
  @Bean
  JwkSetUriJwtDecoderBuilderCustomizer fencepostJwsAlgorithms() {
    return builder ->
        builder.jwsAlgorithms(
            algorithms -> {
              algorithms.add(SignatureAlgorithm.RS256);
              algorithms.add(SignatureAlgorithm.ES256);
            });
  }

  /**
   * Spring Security's own observations (a timer around every filter, the authentication and the
   * authorization of every request) cost about 4 % of the lock server's CPU in the lock benchmark's
   * profile, and nothing reads them: no dashboard, rule or runbook, and no tracing backend.
   * Requests stay observed as {@code http.server.requests}, and refusals as our own events and
   * counters.
   */
  @Bean
  ObservationPredicate fencepostNoSecurityObservations() {
    return SecurityObservations.OFF;
  }

  /**
   * Spring Security's strict firewall with its own rule for header names and values and parameter
   * names, checked without a regular expression ({@link AssignedAndNotControl}). Everything else
   * stays at the firewall's defaults.
   */
  @Bean
  WebSecurityCustomizer fencepostHttpFirewall() {
    StrictHttpFirewall firewall = new StrictHttpFirewall();
    firewall.setAllowedHeaderNames(AssignedAndNotControl.NAMES);
    firewall.setAllowedHeaderValues(AssignedAndNotControl.HEADER_VALUES);
    firewall.setAllowedParameterNames(AssignedAndNotControl.NAMES);
    return web -> web.httpFirewall(firewall);
  }

  /** Spring Security picks this bean up for the requests its firewall refuses. */
  @Bean
  RequestRejectedHandler fencepostRequestRejectedHandler() {
    return new RefusalHandlers();
  }

  @Bean
  SecurityFilterChain fencepostSecurityFilterChain(
      HttpSecurity http,
      FencepostSecurityProperties properties,
      ObjectProvider<EndpointAccess> endpointAccess,
      ObjectProvider<JwtDecoder> jwtDecoder,
      Environment environment)
      throws Exception {
    List<EndpointAccess> declared = endpointAccess.orderedStream().toList();
    DeclaredRules rules = new DeclaredRules();
    declared.forEach(access -> access.declare(rules));
    JwtDecoder decoder = jwtDecoder.getIfAvailable();
    if (decoder == null) {
      throw new IllegalStateException(
          "no JWT decoder: set spring.security.oauth2.resourceserver.jwt.jwk-set-uri (or"
              + " issuer-uri) to the identity issuer's keys; docs/security.md");
    }
    // Probes and the scrape come unauthenticated from the cluster, so the endpoints they read are
    // open only where nothing else is served: on a management port of its own. Sharing the
    // application's port fails closed rather than exposing them beside the API.
    boolean probesOpen = ManagementPortType.get(environment) == ManagementPortType.DIFFERENT;
    if (!probesOpen) {
      log.atWarn()
          .addKeyValue("event", "security.management_port_shared")
          .log(
              "management endpoints share the application's port: health and prometheus need an"
                  + " OPERATOR token; set management.server.port");
    }
    RefusalHandlers refusals = new RefusalHandlers();
    JwtAuthenticationConverter tokens = new JwtAuthenticationConverter();
    tokens.setPrincipalClaimName(properties.getPrincipalClaim());
    tokens.setJwtGrantedAuthoritiesConverter(
        new RolesClaimConverter(properties.getRolesClaim(), properties.getSubjectRoles()));
    return http
        // CSRF protects cookie-authenticated browsers from forged requests. Every caller here
        // authenticates with a bearer token it sets explicitly per request; no cookie or session
        // carries credentials, so a forged cross-site request has nothing to ride on.
        .csrf(AbstractHttpConfigurer::disable)
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .requestCache(AbstractHttpConfigurer::disable)
        .formLogin(AbstractHttpConfigurer::disable)
        .httpBasic(AbstractHttpConfigurer::disable)
        .logout(AbstractHttpConfigurer::disable)
        .authorizeHttpRequests(
            registry -> {
              registry.dispatcherTypeMatchers(DispatcherType.ERROR).permitAll();
              if (probesOpen) {
                registry.requestMatchers(EndpointRequest.to("health", "prometheus")).permitAll();
              }
              registry
                  .requestMatchers(EndpointRequest.toAnyEndpoint())
                  .hasRole(FencepostRole.OPERATOR.name());
              rules.applyTo(registry);
              registry.anyRequest().denyAll();
            })
        .oauth2ResourceServer(
            resourceServer ->
                resourceServer
                    .bearerTokenResolver(new BearerHeaderResolver())
                    .jwt(
                        jwt ->
                            jwt.decoder(
                                    new VerifiedTokens(
                                        decoder,
                                        properties.getVerifiedTokenTtl(),
                                        MAX_VERIFIED_TOKENS,
                                        Clock.systemUTC()))
                                .jwtAuthenticationConverter(tokens))
                    .authenticationEntryPoint(refusals)
                    .accessDeniedHandler(refusals))
        .exceptionHandling(e -> e.authenticationEntryPoint(refusals).accessDeniedHandler(refusals))
        .build();
  }
}
