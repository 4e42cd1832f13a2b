package dev.fencepost.railproxy;

import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.EndpointAccess;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.web.ProblemJsonAutoConfiguration;
import dev.fencepost.web.RequestBodyLimitFilter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/** Wires the submit path explicitly: store, rail client, guard switches, service. */
@Configuration(proxyBeanMethods = false)
class ProxyConfiguration {

  private static final Logger log = LoggerFactory.getLogger(ProxyConfiguration.class);

  @Bean
  FencingSwitches fencingSwitches(ProxyProperties properties, MeterRegistry meters) {
    return FencingSwitches.from(properties.fencing(), meters);
  }

  /** The grant check; a test may register its own {@link GrantVerifier} before refresh. */
  @Bean
  @ConditionalOnMissingBean(GrantVerifier.class)
  GrantVerifier grantVerifier(GrantVerificationProperties properties) {
    return SignedGrantVerifier.from(properties, Clock.systemUTC());
  }

  /**
   * Without a configured token source the client still starts (the read endpoints over proxydb keep
   * working) but every rail call is refused before anything is recorded or sent (ADR 0145).
   */
  @Bean
  RailClient railClient(
      RailProperties properties, JsonMapper json, ObjectProvider<BearerTokenSource> credentials) {
    BearerTokenSource source =
        credentials.getIfAvailable(
            () -> {
              log.atWarn()
                  .addKeyValue("event", "rail.credentials.not_configured")
                  .log(
                      "no outbound credentials configured: every rail call will be refused with"
                          + " 503 RAIL_CREDENTIALS_UNAVAILABLE");
              return () -> {
                throw new IllegalStateException(
                    "no outbound credentials configured (spring.security.oauth2.client"
                        + ".registration.fencepost.* or fencepost.security.client.token-file)");
              };
            });
    return new RailClient(properties, json, source);
  }

  /** Who may call what on the proxy (ADR 0145); anything else is refused. */
  @Bean
  EndpointAccess proxyEndpoints() {
    return rules ->
        rules
            .allow(HttpMethod.POST, "/v1/submissions", FencepostRole.PAYOUT_WORKER)
            .allow(
                HttpMethod.GET,
                "/v1/submissions/{payoutId}",
                FencepostRole.PAYOUT_WORKER,
                FencepostRole.RECONCILER)
            .allow(HttpMethod.GET, "/v1/submissions", FencepostRole.RECONCILER)
            .allow(HttpMethod.GET, "/v1/rail/payments", FencepostRole.RECONCILER);
  }

  @Bean
  SubmissionStore submissionStore(JdbcClient jdbc) {
    return new SubmissionStore(jdbc);
  }

  @Bean
  SubmissionService submissionService(
      GrantVerifier grants,
      SubmissionStore store,
      TransactionTemplate transaction,
      RailClient rail,
      FencingSwitches switches,
      MeterRegistry meters) {
    return new SubmissionService(grants, store, transaction, rail, switches, meters);
  }

  /**
   * web-support's body bound on every path, with the proxy's own limit property; a refusal is
   * counted by {@link ProblemAdvice} like every other.
   */
  @Bean(RequestBodyLimitFilter.BEAN_NAME)
  FilterRegistrationBean<RequestBodyLimitFilter> requestBodyLimitFilter(
      ProxyProperties properties, ProblemAdvice problems) {
    return ProblemJsonAutoConfiguration.registration(
        new RequestBodyLimitFilter(properties.maxRequestSize().toBytes(), problems));
  }
}
