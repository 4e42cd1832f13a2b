package dev.fencepost.lock;

/**
 * A release named a grant that is not the current one (compare-and-delete failed, FR-05): the
 * caller's grant is already gone, and nothing was released. Code {@code NOT_HOLDER}.
 */
public class NotHolderException extends LockException {

  private final LockKey key;

  public NotHolderException(LockKey key) {
    super("the presented grant does not hold lock " + key + "; nothing was released");
    this.key = key;
  }

  public LockKey key() {
    return key;
  }

  @Override
  public String code() {
    return "NOT_HOLDER";
  }
}
