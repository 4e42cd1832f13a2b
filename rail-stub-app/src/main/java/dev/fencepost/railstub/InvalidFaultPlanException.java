package dev.fencepost.railstub;

/** A fault plan that cannot be applied; answered with 400 {@code INVALID_FAULT_PLAN}. */
public class InvalidFaultPlanException extends RuntimeException {

  public InvalidFaultPlanException(String message) {
    super(message);
  }
}
