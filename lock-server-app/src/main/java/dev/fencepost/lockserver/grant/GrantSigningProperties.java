package dev.fencepost.lockserver.grant;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Where the lock server's grant-signing keys come from, {@code fencepost.lock.grant-signing.*} (ADR
 * 0136). No key ships with the server: it refuses to start without this file.
 *
 * @param jwkSetFile a JWK set (RFC 7517 JSON, {@code {"keys": [...]}}) of EC P-256 keys, each with
 *     a {@code kid}. The first key is the current one and must include its private part: it signs
 *     every grant. Any further keys are previous ones: no longer used to sign, still published at
 *     {@code GET /v1/grant-keys} so that grants they signed verify until they expire. Readable by
 *     the lock server only; locally the launcher generates it per platform, in production it is a
 *     mounted secret.
 */
@ConfigurationProperties("fencepost.lock.grant-signing")
public record GrantSigningProperties(Path jwkSetFile) {

  /** The file, or a start-up failure naming the property. */
  public Path requiredJwkSetFile() {
    if (jwkSetFile == null) {
      throw new IllegalStateException(
          "fencepost.lock.grant-signing.jwk-set-file is required: the lock server signs every"
              + " grant and ships no key (ADR 0136)");
    }
    return jwkSetFile;
  }
}
