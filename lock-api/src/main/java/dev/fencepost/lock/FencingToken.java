package dev.fencepost.lock;

/**
 * A fencing token: the integer that every guard compares against the highest it has accepted.
 *
 * <p>Tokens are strictly increasing per lock key across the lock service's whole lifetime,
 * including restarts, failover, force-revoke and restore (INV-04). One token identifies one grant;
 * a holder may present its own token several times (ADR 0036), so guards accept {@code token >=
 * fence} and refuse {@code token < fence}.
 *
 * <p>This is the safety mechanism. Carry it as an explicit parameter, never in a thread-local.
 *
 * @param value a positive integer
 */
public record FencingToken(long value) implements Comparable<FencingToken> {

  public FencingToken {
    if (value <= 0) {
      throw new IllegalArgumentException("a fencing token is a positive integer, got " + value);
    }
  }

  public static FencingToken of(long value) {
    return new FencingToken(value);
  }

  /** True when this token is strictly newer than {@code other}. */
  public boolean isNewerThan(FencingToken other) {
    return value > other.value;
  }

  /**
   * True when a guard whose stored fence is {@code fence} must refuse this token (ADRs 0036 and
   * 0046).
   */
  public boolean isStaleAgainst(long fence) {
    return value < fence;
  }

  @Override
  public int compareTo(FencingToken other) {
    return Long.compare(value, other.value);
  }

  @Override
  public String toString() {
    return Long.toString(value);
  }
}
