package dev.fencepost.railproxy;

import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How the proxy reaches the rail, {@code fencepost.rail.*}.
 *
 * @param baseUrl base URL of the rail (the rail stub locally: http://localhost:8083)
 * @param connectTimeout budget for opening a connection to the rail
 * @param timeout budget for the whole submit exchange; past it the outcome is TIMEOUT, never a
 *     retry (A-07: 10 s)
 * @param lookupTimeout budget for one read-only lookup by client reference
 */
@ConfigurationProperties("fencepost.rail")
public record RailProperties(
    URI baseUrl,
    @DefaultValue("10s") Duration connectTimeout,
    @DefaultValue("10s") Duration timeout,
    @DefaultValue("5s") Duration lookupTimeout) {

  public RailProperties {
    if (baseUrl == null || baseUrl.getScheme() == null || baseUrl.getHost() == null) {
      throw new IllegalArgumentException(
          "fencepost.rail.base-url must be an absolute http(s) URL, for example"
              + " http://localhost:8083");
    }
    requirePositive(connectTimeout, "connect-timeout");
    requirePositive(timeout, "timeout");
    requirePositive(lookupTimeout, "lookup-timeout");
  }

  private static void requirePositive(Duration value, String name) {
    if (value == null || value.isZero() || value.isNegative()) {
      throw new IllegalArgumentException("fencepost.rail." + name + " must be positive");
    }
  }
}
