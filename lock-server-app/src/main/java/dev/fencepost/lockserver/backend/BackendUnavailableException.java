package dev.fencepost.lockserver.backend;

/**
 * The backend store could not be reached or did not answer in time. The HTTP layer answers 503
 * {@code BACKEND_UNAVAILABLE}; clients fail closed (UC-08).
 */
public class BackendUnavailableException extends RuntimeException {

  public BackendUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
