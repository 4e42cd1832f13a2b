package dev.fencepost.lockserver.service;

/** A request that is well-formed JSON but outside the contract's bounds. HTTP 400. */
public class InvalidRequestException extends RuntimeException {

  public InvalidRequestException(String message) {
    super(message);
  }
}
