package dev.fencepost.launcher;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The lock server's grant-signing keys of one platform (ADR 0136): generated here, never shipped,
 * written as two JWK set files in a directory: {@value #PRIVATE_FILE} for the lock server (owner
 * read/write only; its first key signs) and {@value #PUBLIC_FILE}, public parts only, for a proxy
 * configured statically. Immutable: {@link #rotate()} and {@link #withoutPrevious()} write new
 * files and return a new instance.
 */
public final class GrantSigningKeys {

  /** The lock server's property naming its JWK set file. */
  public static final String LOCK_SERVER_PROPERTY = "fencepost.lock.grant-signing.jwk-set-file";

  /** The proxy's property for the lock server's published keys. */
  public static final String PROXY_URI_PROPERTY = "fencepost.proxy.grants.jwk-set-uri";

  /** The proxy's property for a static public JWK set file. */
  public static final String PROXY_FILE_PROPERTY = "fencepost.proxy.grants.jwk-set-file";

  /** The lock server's file, private keys included. */
  public static final String PRIVATE_FILE = "grant-signing-jwks.json";

  /** The same keys, public parts only. */
  public static final String PUBLIC_FILE = "grant-keys-public.json";

  private final Path dir;
  private final List<ECKey> keys;

  private GrantSigningKeys(Path dir, List<ECKey> keys) {
    this.dir = dir;
    this.keys = List.copyOf(keys);
    write();
  }

  /** One fresh P-256 key in {@code dir}. */
  public static GrantSigningKeys generate(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new GrantSigningKeys(dir, List.of(newKey()));
  }

  /** A new current key; the old ones stay, as previous keys (still published). */
  public GrantSigningKeys rotate() {
    List<ECKey> rotated = new ArrayList<>();
    rotated.add(newKey());
    rotated.addAll(keys);
    return new GrantSigningKeys(dir, rotated);
  }

  /** Only the current key: the previous ones are no longer published. */
  public GrantSigningKeys withoutPrevious() {
    return new GrantSigningKeys(dir, List.of(keys.get(0)));
  }

  /** The key that signs. */
  public ECKey current() {
    return keys.get(0);
  }

  /** Every key, current first. */
  public List<ECKey> keys() {
    return keys;
  }

  public Path privateFile() {
    return dir.resolve(PRIVATE_FILE);
  }

  public Path publicFile() {
    return dir.resolve(PUBLIC_FILE);
  }

  /** The lock server's argument for these keys. */
  public String lockServerArg() {
    return "--" + LOCK_SERVER_PROPERTY + "=" + privateFile();
  }

  /** A proxy's argument to verify grants against these keys without asking the lock server. */
  public String staticProxyArg() {
    return "--" + PROXY_FILE_PROPERTY + "=" + publicFile();
  }

  /** A proxy's argument to fetch the keys from the lock server at {@code lockServerBaseUrl}. */
  public static String remoteProxyArg(String lockServerBaseUrl) {
    return "--" + PROXY_URI_PROPERTY + "=" + lockServerBaseUrl + "/v1/grant-keys";
  }

  private void write() {
    List<JWK> all = new ArrayList<>(keys);
    writeFile(privateFile(), new JWKSet(all).toString(false));
    writeFile(publicFile(), new JWKSet(all).toString(true));
  }

  private static void writeFile(Path file, String content) {
    try {
      Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
      try {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system: the directory's own protection applies
      }
      Files.writeString(tmp, content);
      Files.move(
          tmp,
          file,
          java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ECKey newKey() {
    try {
      return new ECKeyGenerator(Curve.P_256)
          .keyID("grant-" + UUID.randomUUID().toString().substring(0, 8))
          .keyUse(KeyUse.SIGNATURE)
          .algorithm(JWSAlgorithm.ES256)
          .generate();
    } catch (JOSEException e) {
      throw new IllegalStateException("cannot generate a P-256 key", e);
    }
  }
}
