package dev.fencepost.railproxy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How the proxy verifies the lock server's signed grants, {@code fencepost.proxy.grants.*} (ADRs
 * 0135, 0136 and 0137). Exactly one key source must be set, or the proxy refuses to start: there is
 * no setting that accepts unsigned submissions.
 *
 * @param jwkSetUri the lock server's published keys, {@code http://HOST:8081/v1/grant-keys}:
 *     fetched on the first submission, cached for {@code keysCacheTtl}, fetched again at once (at
 *     most once per {@code keysRefetchMinInterval}) when a grant names a key id the cache does not
 *     have, so a rotation needs no proxy restart
 * @param jwkSetFile instead of the URI: a JWK set file of the public keys, read at start (a
 *     rotation then needs the new file and a restart)
 * @param clockSkew how far past its {@code exp} a grant is still accepted, for the difference
 *     between the lock server's clock and the proxy's; small, because an expired grant is refused
 *     with GRANT_EXPIRED (ADR 0137)
 * @param keysCacheTtl how long fetched keys are used before they are fetched again; a key removed
 *     from the lock server's set stops verifying at most this long after its removal
 * @param keysRefetchMinInterval the least time between two fetches, so that grants naming unknown
 *     key ids cannot make the proxy hammer the lock server
 * @param keysFetchTimeout connect and read timeout of one fetch
 */
@ConfigurationProperties("fencepost.proxy.grants")
public record GrantVerificationProperties(
    URI jwkSetUri,
    Path jwkSetFile,
    @DefaultValue("2s") Duration clockSkew,
    @DefaultValue("5m") Duration keysCacheTtl,
    @DefaultValue("5s") Duration keysRefetchMinInterval,
    @DefaultValue("2s") Duration keysFetchTimeout) {

  public GrantVerificationProperties {
    if ((jwkSetUri == null) == (jwkSetFile == null)) {
      throw new IllegalArgumentException(
          "set exactly one of fencepost.proxy.grants.jwk-set-uri (the lock server's"
              + " /v1/grant-keys) and fencepost.proxy.grants.jwk-set-file: the proxy verifies"
              + " every grant and has no unsigned mode (ADR 0137)");
    }
    if (clockSkew.isNegative() || clockSkew.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException(
          "fencepost.proxy.grants.clock-skew must be between 0 and 10m");
    }
  }
}
