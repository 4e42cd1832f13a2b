package dev.fencepost.railproxy;

import io.micrometer.core.instrument.MeterRegistry;
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
      SubmissionStore store,
      TransactionTemplate transaction,
      RailClient rail,
      FencingSwitches switches,
      MeterRegistry meters) {
    return new SubmissionService(store, transaction, rail, switches, meters);
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
