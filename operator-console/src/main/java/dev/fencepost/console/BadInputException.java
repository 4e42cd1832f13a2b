package dev.fencepost.console;

/** A form field or query parameter the console does not accept: a 400 page naming it. */
class BadInputException extends RuntimeException {

  private final String field;

  BadInputException(String field, String message) {
    super(message);
    this.field = field;
  }

  String field() {
    return field;
  }
}
