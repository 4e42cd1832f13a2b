package dev.fencepost.railproxy;

/**
 * 403: the submission's grant does not prove that the lock server issued this token for this
 * account (ADR 0137). Nothing was sent to the rail; the high-water was not touched.
 */
public class GrantRefusedException extends RuntimeException {

  /** Why, as the problem's {@code code} and the rejection row's {@code reason}. */
  public enum Code {
    /** No grant in the submission. */
    GRANT_MISSING,
    /**
     * Not a grant the lock server signed: unparseable, wrong type or algorithm, a key id it never
     * published (or no longer publishes), or a signature that does not verify.
     */
    FORGED_GRANT,
    /** Signed by the lock server, but past its expiry (plus the allowed clock skew). */
    GRANT_EXPIRED,
    /** Signed by the lock server, but for another lock key or another token. */
    GRANT_MISMATCH
  }

  private final Code code;
  private final SubmissionRequest request;
  private final String keyId;

  public GrantRefusedException(
      Code code, SubmissionRequest request, String keyId, String detail, Throwable cause) {
    super(detail, cause);
    this.code = code;
    this.request = request;
    this.keyId = keyId;
  }

  public Code code() {
    return code;
  }

  public SubmissionRequest request() {
    return request;
  }

  /** The {@code kid} the grant named, if it could be read. */
  public String keyId() {
    return keyId;
  }
}
