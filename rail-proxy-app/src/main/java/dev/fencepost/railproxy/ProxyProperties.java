package dev.fencepost.railproxy;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The proxy's own behaviour, {@code fencepost.proxy.*}.
 *
 * @param currency the single currency the platform pays out in; anything else is a 400
 * @param maxRequestSize largest request body accepted; a larger one is a 413 before parsing
 * @param maxPageSize largest {@code limit} the submissions listing accepts
 * @param fencing the guard switches (FR-29, ADR 0043)
 */
@ConfigurationProperties("fencepost.proxy")
public record ProxyProperties(
    @DefaultValue("EUR") String currency,
    @DefaultValue("16KB") DataSize maxRequestSize,
    @DefaultValue("500") int maxPageSize,
    @DefaultValue Fencing fencing) {

  public ProxyProperties {
    if (currency == null || !currency.matches("[A-Z]{3}")) {
      throw new IllegalArgumentException("fencepost.proxy.currency must be an ISO code like EUR");
    }
    if (maxPageSize < 1) {
      throw new IllegalArgumentException("fencepost.proxy.max-page-size must be positive");
    }
  }

  /**
   * Guard switches for the negative-control experiment only (FR-29, ADR 0043). Both default on;
   * turning either off also requires {@code experiment=true}, or the proxy refuses to start.
   *
   * @param highWaterEnabled reject a token below the account's high-water (ADR 0046, FR-17)
   * @param uniquenessEnabled reject a second submission for a payout (FR-18); off only to show the
   *     duplicate reaching the rail
   * @param experiment acknowledges that a guard is deliberately off for an experiment
   */
  public record Fencing(
      @DefaultValue("true") boolean highWaterEnabled,
      @DefaultValue("true") boolean uniquenessEnabled,
      @DefaultValue("false") boolean experiment) {}
}
