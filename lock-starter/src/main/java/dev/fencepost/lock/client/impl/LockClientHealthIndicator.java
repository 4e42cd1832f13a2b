package dev.fencepost.lock.client.impl;

import dev.fencepost.lock.client.LockClient;
import dev.fencepost.lock.client.SessionStatus;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Reports the client's session: UP while its conservative local deadline is in the future, DOWN
 * when there is no session or heartbeats have not confirmed it in time, OUT_OF_SERVICE once the
 * client is stopped. The session id appears in the details (never in a metric tag, NFR-09).
 */
public final class LockClientHealthIndicator implements HealthIndicator {

  private final LockClient client;

  public LockClientHealthIndicator(LockClient client) {
    this.client = client;
  }

  @Override
  public Health health() {
    SessionStatus status = client.sessionStatus();
    Health.Builder builder =
        switch (status.state()) {
          case CONNECTED -> Health.up();
          case EXPIRED, DISCONNECTED -> Health.down();
          case STOPPED -> Health.outOfService();
        };
    builder
        .withDetail("state", status.state().name())
        .withDetail("ttl", status.ttl().toString())
        .withDetail("remaining", status.remaining().toString())
        .withDetail("activeGrants", status.activeGrants())
        .withDetail("consecutiveHeartbeatFailures", status.consecutiveHeartbeatFailures());
    if (status.sessionId() != null) {
      builder.withDetail("sessionId", status.sessionId());
    }
    if (status.lastError() != null) {
      builder.withDetail("lastError", status.lastError());
    }
    return builder.build();
  }
}
