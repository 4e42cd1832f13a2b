package dev.fencepost.lockserver;

import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.security.TestIssuer;

/**
 * The identities of this module's tests: one {@link TestIssuer} for the JVM, whose keys every lock
 * server started here trusts ({@link #serverArgs()}), and the callers the tests act as.
 */
public final class TestIdentities {

  /** Lives as long as the test JVM, like the servers that fetch its keys. */
  public static final TestIssuer ISSUER = TestIssuer.start();

  /** The subject of the default test client: a lock holder. */
  public static final String CLIENT = "lock-test-client";

  private TestIdentities() {}

  /** {@code --spring.security.oauth2.resourceserver.jwt.jwk-set-uri=...} for a lock server. */
  public static String serverArg() {
    return ISSUER.resourceServerArgs().get(0);
  }

  /** The default caller of the tests: a payout worker named {@link #CLIENT}. */
  public static BearerTokenSource client() {
    return ISSUER.tokens(CLIENT, FencepostRole.PAYOUT_WORKER);
  }

  /** An operator named {@code name}. */
  public static BearerTokenSource operator(String name) {
    return ISSUER.tokens(name, FencepostRole.OPERATOR);
  }

  /** Any caller named {@code name} with {@code roles}. */
  public static BearerTokenSource as(String name, FencepostRole... roles) {
    return ISSUER.tokens(name, roles);
  }
}
