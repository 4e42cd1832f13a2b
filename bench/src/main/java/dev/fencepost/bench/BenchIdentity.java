package dev.fencepost.bench;

import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostRole;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;

/**
 * The identity issuer of a bench JVM, started on first use: every benchmarked lock server trusts
 * it, and every bench client calls as its payout worker, as production callers do (the token is
 * part of what a lock call costs).
 */
final class BenchIdentity {

  private static LocalIdentity identity;
  private static BearerTokenSource worker;

  private BenchIdentity() {}

  private static synchronized LocalIdentity identity() {
    if (identity == null) {
      try {
        identity =
            LocalIdentity.start(
                Files.createTempDirectory("fencepost-bench-identity-"), Duration.ofMinutes(3));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      LocalIdentity started = identity;
      Runtime.getRuntime().addShutdownHook(new Thread(started::close));
      worker = started.tokens(FencepostRole.PAYOUT_WORKER);
    }
    return identity;
  }

  /** The environment of a lock server that validates the bench's tokens. */
  static Map<String, String> serverEnvironment() {
    return identity().serviceEnvironment();
  }

  /** The bench's payout-worker tokens. */
  static synchronized BearerTokenSource worker() {
    identity();
    return worker;
  }

  /** {@code Bearer <token>} of the bench's payout worker. */
  static String authorization() {
    return "Bearer " + worker().currentToken();
  }
}
