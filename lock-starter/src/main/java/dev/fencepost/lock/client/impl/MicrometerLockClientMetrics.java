package dev.fencepost.lock.client.impl;

import dev.fencepost.lock.LockLostException;
import dev.fencepost.lock.client.LockClientMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * The client's measurements in Micrometer. Tags are the bounded outcome and reason enums only,
 * lower-cased; never a key, owner, token or session id (NFR-09).
 *
 * <ul>
 *   <li>{@code fencepost.lock.client.acquire} timer, tag {@code outcome}:
 *       acquired|held|unavailable|rejected
 *   <li>{@code fencepost.lock.client.heartbeat} timer, tag {@code outcome}: ok|failed|session_lost
 *   <li>{@code fencepost.lock.client.lost} counter, tag {@code reason}:
 *       expired|revoked|session_lost|not_held
 *   <li>{@code fencepost.lock.client.grants.active} gauge
 * </ul>
 */
public final class MicrometerLockClientMetrics implements LockClientMetrics {

  public static final String ACQUIRE = "fencepost.lock.client.acquire";
  public static final String HEARTBEAT = "fencepost.lock.client.heartbeat";
  public static final String LOST = "fencepost.lock.client.lost";
  public static final String ACTIVE_GRANTS = "fencepost.lock.client.grants.active";

  private final MeterRegistry registry;
  private final Map<AcquireOutcome, Timer> acquire;
  private final Map<HeartbeatOutcome, Timer> heartbeat;
  private final Map<LockLostException.Reason, Counter> lost =
      new EnumMap<>(LockLostException.Reason.class);

  public MicrometerLockClientMetrics(MeterRegistry registry) {
    this.registry = registry;
    // Registered up front so dashboards and alerts see zeroes, not missing series.
    acquire =
        timerPerOutcome(
            AcquireOutcome.class, ACQUIRE, "Lock acquires, from the first attempt to the outcome");
    heartbeat =
        timerPerOutcome(
            HeartbeatOutcome.class, HEARTBEAT, "Session keepalives sent by the heartbeat");
    for (LockLostException.Reason reason : LockLostException.Reason.values()) {
      lost.put(
          reason,
          Counter.builder(LOST)
              .description("Held locks lost before release")
              .tag("reason", tag(reason))
              .register(registry));
    }
  }

  private <E extends Enum<E>> Map<E, Timer> timerPerOutcome(
      Class<E> outcomes, String name, String description) {
    Map<E, Timer> timers = new EnumMap<>(outcomes);
    for (E outcome : outcomes.getEnumConstants()) {
      timers.put(
          outcome,
          Timer.builder(name)
              .description(description)
              .tag("outcome", tag(outcome))
              .register(registry));
    }
    return timers;
  }

  @Override
  public void acquire(AcquireOutcome outcome, Duration elapsed) {
    acquire.get(outcome).record(elapsed);
  }

  @Override
  public void heartbeat(HeartbeatOutcome outcome, Duration elapsed) {
    heartbeat.get(outcome).record(elapsed);
  }

  @Override
  public void lost(LockLostException.Reason reason) {
    lost.get(reason).increment();
  }

  @Override
  public void activeGrants(IntSupplier activeGrants) {
    Gauge.builder(ACTIVE_GRANTS, activeGrants::getAsInt)
        .description("Locks this client currently holds")
        .strongReference(true)
        .register(registry);
  }

  private static String tag(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }
}
