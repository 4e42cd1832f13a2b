package dev.fencepost.lockserver.service;

/**
 * A request to the lock server that is well-formed JSON but outside the contract's bounds: 400
 * {@code INVALID_REQUEST}.
 */
public class InvalidLockRequestException extends RuntimeException {

  public InvalidLockRequestException(String message) {
    super(message);
  }
}
