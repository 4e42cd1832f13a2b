package dev.fencepost.lock.client.impl;

/**
 * A request could not get an answer from the lock service: connect or read timeout, connection
 * refused or reset, or a 502/503/504 from the server or a gateway in front of it. The only failure
 * that acquire retries (FR-28); whether the request took effect is unknown, which is safe for
 * acquire because the same session acquiring again receives the same grant and token.
 */
final class LockServerUnreachableException extends RuntimeException {

  LockServerUnreachableException(String message, Throwable cause) {
    super(message, cause);
  }
}
