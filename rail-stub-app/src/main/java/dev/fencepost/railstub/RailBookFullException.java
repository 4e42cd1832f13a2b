package dev.fencepost.railstub;

/**
 * The stub's in-memory books are at {@code fencepost.stub.max-movements}: 503 {@code
 * RAIL_BOOK_FULL}, no movement and no attempt recorded. {@code DELETE /rail/admin/movements}
 * empties the books.
 */
public final class RailBookFullException extends RuntimeException {

  public RailBookFullException(String what, int max) {
    super(
        "the rail stub holds "
            + what
            + " at its maximum of "
            + max
            + "; nothing was moved (DELETE /rail/admin/movements empties it)");
  }
}
