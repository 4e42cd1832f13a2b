package dev.fencepost.railproxy;

import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.security.TestIssuer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * One test issuer for this module's JVM: the proxy (and the stub it calls) accept its tokens, test
 * callers present them, and the proxy's own rail credential is a RAIL_PROXY token in a file, read
 * through security-support's token-file source as a projected service-account token would be.
 */
final class TestIdentities {

  static final TestIssuer ISSUER = TestIssuer.start();

  /** The proxy's own credential for the rail; long-lived so a slow suite never outlives it. */
  static final Path RAIL_TOKEN_FILE = railTokenFile();

  private TestIdentities() {}

  static String token(FencepostRole role) {
    return ISSUER.token(TestIssuer.subjectOf(role), role);
  }

  /** Properties for a proxy under test: accept the issuer's tokens, call the rail as RAIL_PROXY. */
  static void register(DynamicPropertyRegistry registry) {
    registry.add("spring.security.oauth2.resourceserver.jwt.jwk-set-uri", ISSUER::jwkSetUri);
    registry.add("fencepost.security.client.token-file", RAIL_TOKEN_FILE::toString);
  }

  /** The same as command-line arguments. */
  static List<String> proxyArgs() {
    return proxyArgs(RAIL_TOKEN_FILE);
  }

  /** The same, with {@code railTokenFile} as the proxy's rail credential (it may be missing). */
  static List<String> proxyArgs(Path railTokenFile) {
    return List.of(
        "--spring.security.oauth2.resourceserver.jwt.jwk-set-uri=" + ISSUER.jwkSetUri(),
        "--fencepost.security.client.token-file=" + railTokenFile);
  }

  private static Path railTokenFile() {
    try {
      Path file = Files.createTempFile("rail-proxy-token", ".jwt");
      file.toFile().deleteOnExit();
      Files.writeString(
          file,
          ISSUER.mint(
              TestIssuer.subjectOf(FencepostRole.RAIL_PROXY),
              TestIssuer.AUDIENCE,
              Instant.now(),
              Duration.ofHours(12),
              FencepostRole.RAIL_PROXY));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
