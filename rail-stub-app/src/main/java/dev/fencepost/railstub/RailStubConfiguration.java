package dev.fencepost.railstub;

import java.time.Clock;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the stub's in-memory world and the connection-dropping valve. */
@Configuration(proxyBeanMethods = false)
class RailStubConfiguration {

  @Bean
  MovementBook movementBook() {
    return new MovementBook();
  }

  @Bean
  FaultDecider faultDecider(StubProperties properties) {
    FaultPlan startup =
        new FaultPlan(
            properties.faults().rates(), properties.faults().overrides(), properties.lookupLag());
    return new FaultDecider(properties.seed(), properties.latency(), startup);
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
