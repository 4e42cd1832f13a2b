package dev.fencepost.lock;

/**
 * The caller no longer holds the grant it believes it holds: its lease expired, its session died,
 * or an operator revoked it. Stop before the next side effect. Code {@code LOCK_LOST}.
 *
 * <p>Raised by renew (server-side truth) and by {@link LockHandle#ensureHeld()} (the client's
 * conservative local view). Not raising it proves nothing: only the guards' fences are safety.
 */
public class LockLostException extends LockException {

  /** Why the grant is gone, as far as the raiser knows. Bounded set: safe as a metric tag. */
  public enum Reason {
    /** The client's conservative local deadline passed, or the server's lease expired. */
    EXPIRED,
    /** An operator force-revoked the key. */
    REVOKED,
    /** The session the grant was attached to is gone. */
    SESSION_LOST,
    /** The server no longer has this grant; the precise reason is unknown. */
    NOT_HELD
  }

  private final LockKey key;
  private final Reason reason;

  public LockLostException(LockKey key, Reason reason, String detail) {
    super("lock " + key + " lost (" + reason + "): " + detail);
    this.key = key;
    this.reason = reason;
  }

  public LockKey key() {
    return key;
  }

  public Reason reason() {
    return reason;
  }

  @Override
  public String code() {
    return "LOCK_LOST";
  }
}
