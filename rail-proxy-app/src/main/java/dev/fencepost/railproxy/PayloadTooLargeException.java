package dev.fencepost.railproxy;

import java.io.IOException;

/** The request body is larger than {@code fencepost.proxy.max-request-size}: 413. */
public class PayloadTooLargeException extends IOException {

  public PayloadTooLargeException(long limitBytes) {
    super("request body exceeds " + limitBytes + " bytes");
  }
}
