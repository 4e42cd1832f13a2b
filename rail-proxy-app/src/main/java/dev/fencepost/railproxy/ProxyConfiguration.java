package dev.fencepost.railproxy;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/** Wires the submit path explicitly: store, rail client, guard switches, service. */
@Configuration(proxyBeanMethods = false)
class ProxyConfiguration {

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

  @Bean
  RailClient railClient(RailProperties properties, JsonMapper json) {
    return new RailClient(properties, json);
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

  @Bean
  FilterRegistrationBean<RequestSizeLimitFilter> requestSizeLimitFilter(
      ProxyProperties properties, ProblemAdvice problems) {
    FilterRegistrationBean<RequestSizeLimitFilter> registration =
        new FilterRegistrationBean<>(
            new RequestSizeLimitFilter(properties.maxRequestSize().toBytes(), problems));
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return registration;
  }
}
