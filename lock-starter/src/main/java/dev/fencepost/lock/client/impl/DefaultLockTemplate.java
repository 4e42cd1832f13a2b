package dev.fencepost.lock.client.impl;

import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.client.HeldLock;
import dev.fencepost.lock.client.LockClient;
import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.lock.client.LockedWork;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link LockTemplate} over a {@link LockClient}: acquire, run, release in {@code finally}. The
 * work runs only after a grant was issued (INV-07); every acquire failure propagates before it.
 */
public final class DefaultLockTemplate implements LockTemplate {

  private final LockClient client;
  private final Duration defaultWait;

  public DefaultLockTemplate(LockClient client, Duration defaultWait) {
    this.client = Objects.requireNonNull(client, "client");
    this.defaultWait = Objects.requireNonNull(defaultWait, "defaultWait");
  }

  @Override
  public <T> T execute(LockKey key, Duration wait, LockedWork<T> work) {
    Objects.requireNonNull(work, "work");
    try (HeldLock lock = client.acquire(key, wait)) {
      return work.doWithLock(lock);
    }
  }

  @Override
  public <T> Optional<T> tryExecute(LockKey key, Duration wait, LockedWork<T> work) {
    Objects.requireNonNull(work, "work");
    Optional<HeldLock> acquired = client.tryAcquire(key, wait);
    if (acquired.isEmpty()) {
      return Optional.empty();
    }
    try (HeldLock lock = acquired.get()) {
      return Optional.ofNullable(work.doWithLock(lock));
    }
  }

  @Override
  public Duration defaultWait() {
    return defaultWait;
  }
}
