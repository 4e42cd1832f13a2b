package dev.fencepost.lock.client.testing;

import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.security.TestIssuer;

/**
 * The identities of this module's tests: one {@link TestIssuer} for the JVM, trusted by {@link
 * RealLockServer}, a payout worker every test client acts as, and operators for the admin API.
 */
public final class TestIdentity {

  /** Lives as long as the test JVM, like the lock servers that fetch its keys. */
  public static final TestIssuer ISSUER = TestIssuer.start();

  /** The subject of every test client. */
  public static final String WORKER = "starter-test-worker";

  private TestIdentity() {}

  /** Tokens of the payout worker the test clients act as. */
  public static BearerTokenSource worker() {
    return ISSUER.tokens(WORKER, FencepostRole.PAYOUT_WORKER);
  }

  /** Tokens of the operator {@code name}. */
  public static BearerTokenSource operator(String name) {
    return ISSUER.tokens(name, FencepostRole.OPERATOR);
  }
}
