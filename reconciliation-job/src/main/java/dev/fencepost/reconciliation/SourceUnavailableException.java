package dev.fencepost.reconciliation;

/**
 * A source the comparison needs (the proxy's read API or the rail statement) could not be read. The
 * run then fails and says so: a partial comparison reported as complete would hide exactly the
 * discrepancies it missed (UC-07).
 */
public class SourceUnavailableException extends RuntimeException {

  public SourceUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  public SourceUnavailableException(String message) {
    super(message);
  }
}
