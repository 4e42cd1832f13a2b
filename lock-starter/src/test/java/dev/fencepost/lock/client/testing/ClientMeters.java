package dev.fencepost.lock.client.testing;

import io.micrometer.core.instrument.MeterRegistry;

/** What the lock client's meters counted, read as the tests assert it. */
public final class ClientMeters {

  private ClientMeters() {}

  /** Acquire attempts timed with {@code outcome} (acquired, held, unavailable, ...). */
  public static long acquisitions(MeterRegistry registry, String outcome) {
    return registry.get("fencepost.lock.client.acquire").tag("outcome", outcome).timer().count();
  }
}
