package dev.fencepost.history;

/** A run directory's file cannot be read: names the file and the 1-based line. */
public final class HistoryFormatException extends RuntimeException {
  public HistoryFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
