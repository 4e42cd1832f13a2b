package dev.fencepost.launcher.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLException;

/**
 * What an etcd client of a secured {@link EtcdCluster} presents: the cluster's CA to trust, a
 * client certificate and key for {@code --client-cert-auth}, and an etcd user with its password.
 *
 * @param caFile the CA that signed the members' certificates (PEM)
 * @param certificateFile the client certificate, then the CA's (PEM); its subject is deliberately
 *     not an etcd user, so the certificate alone opens the connection but grants no key
 * @param keyFile the client certificate's private key (PKCS#8 PEM, owner-only)
 * @param user the etcd user the client authenticates as
 * @param password that user's password, generated for this cluster; never written to a file
 */
public record EtcdCredentials(
    Path caFile, Path certificateFile, Path keyFile, String user, String password) {

  /** The environment variable the lock server reads the password from (lock-server.yaml). */
  public static final String PASSWORD_VARIABLE = "FENCEPOST_LOCK_ETCD_PASSWORD";

  /**
   * The lock server's settings for these credentials, without the password (file paths and the user
   * name only, nothing secret on a command line): pass {@link #lockServerEnvironment()} too.
   */
  public List<String> lockServerArgs() {
    return List.of(
        "--fencepost.lock.etcd.tls.ca-file=" + caFile.toAbsolutePath(),
        "--fencepost.lock.etcd.tls.certificate-file=" + certificateFile.toAbsolutePath(),
        "--fencepost.lock.etcd.tls.key-file=" + keyFile.toAbsolutePath(),
        "--fencepost.lock.etcd.user=" + user);
  }

  /** The password, as the lock server process reads it from its environment. */
  public Map<String, String> lockServerEnvironment() {
    return Map.of(PASSWORD_VARIABLE, password);
  }

  /** The same certificate and CA with another user, for example a wrong password. */
  public EtcdCredentials withUser(String user, String password) {
    return new EtcdCredentials(caFile, certificateFile, keyFile, user, password);
  }

  /** A jetcd client over {@code endpoints} presenting these credentials (jetcd's own TLS). */
  public Client client(String endpoints) {
    return builder(endpoints).build();
  }

  /** {@link #client(String)}'s builder, for further settings. */
  public ClientBuilder builder(String endpoints) {
    try {
      return Client.builder()
          .endpoints(endpoints.split(","))
          .sslContext(
              tls ->
                  tls.trustManager(caFile.toFile())
                      .keyManager(certificateFile.toFile(), keyFile.toFile()))
          .user(ByteSequence.from(user, StandardCharsets.UTF_8))
          .password(ByteSequence.from(password, StandardCharsets.UTF_8));
    } catch (SSLException e) {
      throw new IllegalStateException("could not load the etcd client's TLS files", e);
    }
  }

  @Override
  public String toString() {
    return "EtcdCredentials[user=" + user + ", certificate=" + certificateFile + "]";
  }
}
