package dev.fencepost.console;

/** The person's access token is gone or about to expire: they sign in again. */
public class SignInExpiredException extends RuntimeException {
  public SignInExpiredException() {
    super("the sign-in has expired");
  }
}
