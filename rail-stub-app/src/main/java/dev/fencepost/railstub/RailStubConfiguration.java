package dev.fencepost.railstub;

import dev.fencepost.security.EndpointAccess;
import dev.fencepost.security.FencepostRole;
import java.time.Clock;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;

/** Wires the stub's in-memory world and the connection-dropping valve. */
@Configuration(proxyBeanMethods = false)
class RailStubConfiguration {

  @Bean
  MovementBook movementBook(StubProperties properties) {
    return new MovementBook(properties.maxMovements());
  }

  @Bean
  FaultDecider faultDecider(StubProperties properties) {
    FaultPlan startup =
        new FaultPlan(
            properties.faults().rates(), properties.faults().overrides(), properties.lookupLag());
    return new FaultDecider(
        properties.seed(), properties.latency(), startup, properties.maxMovements());
  }

  /**
   * Only the rail proxy pays and looks up, as only it may call the real rail. The movement ledger
   * stands in for the rail's statement, which the reconciler reads (ADR 0071), so it is the
   * reconciler's and an operator's to read, like the camt.053 statement that replaces it for the
   * reconciler (ADR 0176); steering faults and clearing the ledger is an operator's alone, used by
   * tests and experiments (ADR 0146).
   */
  @Bean
  EndpointAccess stubEndpoints() {
    return rules ->
        rules
            .allow(HttpMethod.POST, "/rail/payments", FencepostRole.RAIL_PROXY)
            .allow(HttpMethod.GET, "/rail/payments", FencepostRole.RAIL_PROXY)
            .allow(
                HttpMethod.GET,
                "/rail/admin/movements",
                FencepostRole.OPERATOR,
                FencepostRole.RECONCILER)
            .allow(
                HttpMethod.GET,
                "/rail/statements",
                FencepostRole.OPERATOR,
                FencepostRole.RECONCILER)
            .allow(HttpMethod.GET, "/rail/admin/**", FencepostRole.OPERATOR)
            .allow(HttpMethod.PUT, "/rail/admin/**", FencepostRole.OPERATOR)
            .allow(HttpMethod.DELETE, "/rail/admin/**", FencepostRole.OPERATOR);
  }

  @Bean
  Clock clock() {
    return Clock.systemUTC();
  }

  @Bean
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> abortConnectionValve() {
    return factory -> factory.addContextValves(new AbortConnectionValve());
  }
}
