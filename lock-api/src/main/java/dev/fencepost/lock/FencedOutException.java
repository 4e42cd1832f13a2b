package dev.fencepost.lock;

/**
 * A guard refused a write because the presented token is below the fence it stores: the caller's
 * grant has been superseded (FR-16, INV-05). This is the safety net firing, an incident-grade
 * signal (NFR-06). Abort at once and never retry under the same token. Code {@code STALE_TOKEN}.
 */
public class FencedOutException extends LockException {

  private final String key;
  private final long presentedToken;
  private final long storedFence;
  private final String owner;

  /**
   * @param key what the fence protects (for example {@code payout:acc-1})
   * @param presentedToken the token the caller presented
   * @param storedFence the fence the guard holds, greater than the presented token
   * @param owner the caller's identity, for the postmortem
   */
  public FencedOutException(String key, long presentedToken, long storedFence, String owner) {
    super(
        "fenced out on "
            + key
            + ": presented token "
            + presentedToken
            + " is below stored fence "
            + storedFence);
    this.key = key;
    this.presentedToken = presentedToken;
    this.storedFence = storedFence;
    this.owner = owner;
  }

  public String key() {
    return key;
  }

  public long presentedToken() {
    return presentedToken;
  }

  public long storedFence() {
    return storedFence;
  }

  public String owner() {
    return owner;
  }

  @Override
  public String code() {
    return "STALE_TOKEN";
  }
}
