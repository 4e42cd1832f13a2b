package dev.fencepost.lock;

/**
 * The key is held by another session and did not become free within the wait budget. A normal
 * outcome of contention (UC-02), not an error: the caller skips the work or tries later. Code
 * {@code LOCK_HELD}.
 */
public class LockNotAcquiredException extends LockException {

  private final LockKey key;

  public LockNotAcquiredException(LockKey key) {
    super("lock " + key + " is held by another session");
    this.key = key;
  }

  public LockKey key() {
    return key;
  }

  @Override
  public String code() {
    return "LOCK_HELD";
  }
}
