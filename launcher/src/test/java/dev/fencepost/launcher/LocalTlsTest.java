package dev.fencepost.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The certificates the launcher generates for a run (ADR 0150): a server certificate for {@code
 * 127.0.0.1} and {@code localhost} signed by the run's own CA, its private key readable only by the
 * owner, the chain a service presents, and a trust store that trusts the CA; and the arguments that
 * hand them to a service and to a JVM.
 */
class LocalTlsTest {

  @TempDir Path dir;

  @Test
  void theServerCertificateNamesTheLoopbackAddressAndLocalhostAndIsOnlyForServers()
      throws Exception {
    LocalTls tls = LocalTls.generate(dir.resolve("tls"));
    X509Certificate server = tls.serverCertificate();

    Collection<List<?>> names = server.getSubjectAlternativeNames();
    // Type 7 is an IP address, type 2 a DNS name (RFC 5280).
    assertThat(names).containsExactlyInAnyOrder(List.of(7, "127.0.0.1"), List.of(2, "localhost"));
    assertThat(server.getBasicConstraints()).isEqualTo(-1);
    assertThat(server.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
    assertThat(tls.caCertificate().getBasicConstraints()).isGreaterThanOrEqualTo(0);
    server.verify(tls.caCertificate().getPublicKey());
  }

  @Test
  void thePrivateKeyAndItsDirectoryAreTheOwnersAlone() throws Exception {
    LocalTls tls = LocalTls.generate(dir.resolve("tls"));

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tls.privateKeyFile())))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tls.dir())))
        .isEqualTo("rwx------");
    assertThat(Files.readString(tls.privateKeyFile())).startsWith("-----BEGIN PRIVATE KEY-----");
  }

  @Test
  void aRenewedKeyIsTheOwnersAloneToo() throws Exception {
    LocalTls renewed = LocalTls.generate(dir.resolve("tls")).renewServerCertificate();

    assertThat(
            PosixFilePermissions.toString(Files.getPosixFilePermissions(renewed.privateKeyFile())))
        .isEqualTo("rw-------");
  }

  @Test
  void theCertificateFileIsTheChainFromTheServerToTheCa() throws Exception {
    LocalTls tls = LocalTls.generate(dir.resolve("tls"));

    List<X509Certificate> chain;
    try (var in = Files.newInputStream(tls.certificateFile())) {
      chain =
          CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
              .map(X509Certificate.class::cast)
              .toList();
    }

    assertThat(chain).containsExactly(tls.serverCertificate(), tls.caCertificate());
  }

  @Test
  void theTrustStoreTrustsTheRunCaButNotAnotherRunsCa() throws Exception {
    LocalTls tls = LocalTls.generate(dir.resolve("tls"));
    LocalTls other = LocalTls.generate(dir.resolve("other"));
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(tls.trustStore())) {
      store.load(in, LocalTls.TRUSTSTORE_PASSWORD.toCharArray());
    }
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    X509TrustManager trust = (X509TrustManager) factory.getTrustManagers()[0];
    X509Certificate[] ours = {tls.serverCertificate(), tls.caCertificate()};
    X509Certificate[] theirs = {other.serverCertificate(), other.caCertificate()};

    trust.checkServerTrusted(ours, "ECDHE_ECDSA");
    assertThatThrownBy(() -> trust.checkServerTrusted(theirs, "ECDHE_ECDSA"))
        .isInstanceOf(java.security.cert.CertificateException.class);
  }

  @Test
  void aServiceGetsTheBundleByFileAndReloadsItAndAJvmGetsTheTrustStore() {
    LocalTls tls = LocalTls.generate(dir.resolve("tls"));

    assertThat(tls.serverArgs())
        .containsExactly(
            "--spring.ssl.bundle.pem.fencepost.keystore.certificate=file:"
                + tls.certificateFile().toAbsolutePath(),
            "--spring.ssl.bundle.pem.fencepost.keystore.private-key=file:"
                + tls.privateKeyFile().toAbsolutePath(),
            "--spring.ssl.bundle.pem.fencepost.reload-on-update=true",
            "--server.ssl.bundle=fencepost",
            "--management.server.ssl.bundle=fencepost");
    assertThat(tls.trustJvmArgs())
        .contains("-Djavax.net.ssl.trustStore=" + tls.trustStore().toAbsolutePath());
  }
}
