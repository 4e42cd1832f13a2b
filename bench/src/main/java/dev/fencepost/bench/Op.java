package dev.fencepost.bench;

/** The operations the suite measures. */
public enum Op {
  /** A floor's one round trip (loopback echo, fdatasync, no-op HTTP). */
  FLOOR("floor round trip"),
  /** Acquire of a free key; the release afterwards is not timed. */
  ACQUIRE("uncontended acquire"),
  /** Acquire and release of a free key, timed together. */
  PAIR("acquire+release pair"),
  /** A non-waiting acquire of a key another client holds: the refusal. */
  TRY_HELD("try-acquire when held"),
  /** Waiters on one hot key: a release by one to the next grant, whoever gets it. */
  HANDOFF("contended hand-off"),
  /** Renewal of a held lock (the peer's heartbeat/extend call). */
  RENEW("renew / heartbeat"),
  /** A read of a key's state. */
  INSPECT("inspect");

  private final String label;

  Op(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
