package dev.fencepost.lockserver.backend.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The health of the etcd backend ({@code etcd}): a linearizable, count-only read of one key under
 * the lock prefix, which etcd answers only through a leader with a quorum behind it, so it is what
 * every grant also needs. Put in the readiness group, it takes a lock server whose etcd cannot
 * grant out of its Service, as the DataSource indicator does for lockdb (NFR-05).
 */
final class EtcdHealthIndicator implements HealthIndicator {

  private static final Logger log = LoggerFactory.getLogger(EtcdHealthIndicator.class);

  private final KV kv;
  private final ByteSequence probeKey;
  private final Duration timeout;

  EtcdHealthIndicator(KV kv, String keyPrefix, Duration timeout) {
    this.kv = kv;
    this.probeKey = ByteSequence.from(keyPrefix + "health", StandardCharsets.UTF_8);
    this.timeout = timeout;
  }

  @Override
  public Health health() {
    try {
      long revision =
          kv.get(probeKey, GetOption.builder().withCountOnly(true).build())
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .getHeader()
              .getRevision();
      return Health.up().withDetail("revision", revision).build();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return down(e);
    } catch (Exception e) {
      return down(e);
    }
  }

  private static Health down(Exception e) {
    // The class only: etcd's messages can carry endpoints, and the health detail is
    // unauthenticated.
    log.atWarn()
        .addKeyValue("event", "lock.etcd.health_down")
        .addKeyValue("error", e.getClass().getSimpleName())
        .log("the etcd backend did not answer its health read");
    return Health.down().withDetail("error", e.getClass().getSimpleName()).build();
  }
}
