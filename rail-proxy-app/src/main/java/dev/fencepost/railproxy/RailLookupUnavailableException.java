package dev.fencepost.railproxy;

/** The rail's lookup could not answer: 503 {@code RAIL_LOOKUP_UNAVAILABLE}, never a 500. */
public class RailLookupUnavailableException extends RuntimeException {

  public RailLookupUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
