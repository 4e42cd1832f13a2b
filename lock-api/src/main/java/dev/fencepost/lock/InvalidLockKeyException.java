package dev.fencepost.lock;

/** A key outside {@code [A-Za-z0-9:._-]{1,128}}. Code {@code INVALID_KEY}. */
public class InvalidLockKeyException extends LockException {

  public InvalidLockKeyException(String rejected) {
    super(
        "lock key must match "
            + "[A-Za-z0-9:._-]{1,128}, got "
            + (rejected == null ? "null" : rejected.length() + " characters"));
  }

  @Override
  public String code() {
    return "INVALID_KEY";
  }
}
