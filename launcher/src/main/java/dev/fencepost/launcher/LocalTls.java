package dev.fencepost.launcher;

import dev.fencepost.launcher.process.JavaProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS for one local run (ADR 0150): a certificate authority generated for the run, and one server
 * certificate it signs for {@code 127.0.0.1} and {@code localhost}, which every service of the run
 * presents. Written as PEM files into a directory of the run:
 *
 * <ul>
 *   <li>{@value #CA_FILE}: the CA's certificate (public);
 *   <li>{@value #CERTIFICATE_FILE}: the server certificate followed by the CA's (the chain a
 *       service presents);
 *   <li>{@value #PRIVATE_KEY_FILE}: the server's private key, PKCS#8, readable only by its owner;
 *   <li>{@value #TRUSTSTORE_FILE}: a PKCS#12 trust store of the JDK's CAs plus this run's, for the
 *       JVMs the run starts ({@code -Djavax.net.ssl.trustStore}).
 * </ul>
 *
 * The CA's private key never leaves this JVM: it is needed only to sign, and a renewed server
 * certificate ({@link #renewServerCertificate()}, as a rotation would) is signed here too.
 *
 * <p>A service serves TLS through Spring Boot's SSL bundle {@value #BUNDLE} ({@link
 * #serverArgs()}), reloaded when its files change. A JVM started by the launcher trusts the CA
 * through the trust store ({@link #trustJvmArgs()}); the launching JVM through {@link
 * #forThisJvm(Path)}, which makes its default SSL context trust it. Nothing here trusts more than
 * the JDK's CAs and this run's own, and host names are verified as usual.
 */
public final class LocalTls implements JavaProcess.TlsSettings {

  private static final Logger log = LoggerFactory.getLogger(LocalTls.class);

  /** The Spring Boot SSL bundle the services serve with. */
  public static final String BUNDLE = "fencepost";

  public static final String CA_FILE = "ca.pem";
  public static final String CERTIFICATE_FILE = "server.pem";
  public static final String PRIVATE_KEY_FILE = "server-key.pem";
  public static final String TRUSTSTORE_FILE = "truststore.p12";

  /**
   * The trust store's password. Not a secret: the store holds only public certificates, and PKCS#12
   * wants a password for its integrity check.
   */
  public static final String TRUSTSTORE_PASSWORD = "fencepost-local-trust";

  /** How long the run's certificates are valid: a local run, kept up at most for days. */
  private static final Duration VALIDITY = Duration.ofDays(7);

  private static final SecureRandom RANDOM = new SecureRandom();

  private static LocalTls jvm;

  private final Path dir;
  private final KeyPair caKeys;
  private final X509Certificate ca;
  private final X509Certificate server;
  private final SSLContext sslContext;

  private LocalTls(Path dir, KeyPair caKeys, X509Certificate ca, X509Certificate server) {
    this.dir = dir;
    this.caKeys = caKeys;
    this.ca = ca;
    this.server = server;
    this.sslContext = sslContext(trustStore(ca));
  }

  /** A new CA and server certificate, written into {@code dir} (created owner-only). */
  public static LocalTls generate(Path dir) {
    try {
      createPrivateDirectory(dir);
      KeyPair caKeys = newKeyPair();
      X509Certificate ca = caCertificate(caKeys);
      writeAtomically(dir.resolve(CA_FILE), pem(ca), false);
      writeTrustStore(dir.resolve(TRUSTSTORE_FILE), ca);
      LocalTls tls = new LocalTls(dir, caKeys, ca, issueServerCertificate(dir, caKeys, ca));
      log.atInfo()
          .addKeyValue("event", "tls.certificates.generated")
          .addKeyValue("dir", dir.toAbsolutePath().toString())
          .addKeyValue("ca", ca.getSubjectX500Principal().getName())
          .addKeyValue("serial", tls.server.getSerialNumber().toString(16))
          .addKeyValue("subjectAltNames", "IP:127.0.0.1,DNS:localhost")
          .addKeyValue("notAfter", tls.server.getNotAfter().toInstant().toString())
          .log("generated this run's local CA and server certificate");
      return tls;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * This JVM's local TLS, generated into {@code dir} on the first call; later calls get the same
   * (one CA per launching JVM, which is one run of {@code ./fencepost run}). Makes this JVM trust
   * it too: its default SSL context and {@code javax.net.ssl.trustStore} become the trust store of
   * {@link #TRUSTSTORE_FILE}, so the clients built in this JVM (health checks, the rail stub's
   * admin, token sources, a test's own client, an application context started in process) verify
   * the services' certificate.
   */
  public static synchronized LocalTls forThisJvm(Path dir) {
    if (jvm == null) {
      LocalTls tls = generate(dir);
      System.setProperty("javax.net.ssl.trustStore", tls.trustStore().toString());
      System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
      System.setProperty("javax.net.ssl.trustStorePassword", TRUSTSTORE_PASSWORD);
      SSLContext.setDefault(tls.sslContext);
      HttpsURLConnection.setDefaultSSLSocketFactory(tls.sslContext.getSocketFactory());
      log.atInfo()
          .addKeyValue("event", "tls.jvm_trust.installed")
          .addKeyValue("truststore", tls.trustStore().toString())
          .log("this JVM trusts the JDK's CAs and this run's local CA");
      jvm = tls;
    }
    return jvm;
  }

  /** {@link #forThisJvm(Path)} in a new private temporary directory, unless there is one. */
  public static synchronized LocalTls forThisJvm() {
    if (jvm != null) {
      return jvm;
    }
    try {
      return forThisJvm(Files.createTempDirectory("fencepost-tls-"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A new server key and certificate from the same CA, written over the old files (key first, each
   * file replaced atomically): what a certificate rotation does. Services pick it up without a
   * restart (their bundle reloads on update).
   */
  public LocalTls renewServerCertificate() {
    try {
      LocalTls renewed = new LocalTls(dir, caKeys, ca, issueServerCertificate(dir, caKeys, ca));
      log.atInfo()
          .addKeyValue("event", "tls.certificates.renewed")
          .addKeyValue("dir", dir.toAbsolutePath().toString())
          .addKeyValue("serial", renewed.server.getSerialNumber().toString(16))
          .addKeyValue("notAfter", renewed.server.getNotAfter().toInstant().toString())
          .log("renewed the server certificate");
      return renewed;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A service's arguments to serve HTTPS with the bundle {@value #BUNDLE} from these files,
   * reloaded when they change. Paths only: nothing secret reaches the command line.
   */
  @Override
  public List<String> serverArgs() {
    String pem = "--spring.ssl.bundle.pem." + BUNDLE + ".";
    return List.of(
        pem + "keystore.certificate=file:" + certificateFile().toAbsolutePath(),
        pem + "keystore.private-key=file:" + privateKeyFile().toAbsolutePath(),
        pem + "reload-on-update=true",
        "--server.ssl.bundle=" + BUNDLE,
        "--management.server.ssl.bundle=" + BUNDLE);
  }

  /** A JVM's flags to trust the JDK's CAs and this run's (its default SSL context's trust). */
  @Override
  public List<String> trustJvmArgs() {
    return List.of(
        "-Djavax.net.ssl.trustStore=" + trustStore().toAbsolutePath(),
        "-Djavax.net.ssl.trustStoreType=PKCS12",
        "-Djavax.net.ssl.trustStorePassword=" + TRUSTSTORE_PASSWORD);
  }

  /** An SSL context that trusts the JDK's CAs and this run's CA. */
  @Override
  public SSLContext sslContext() {
    return sslContext;
  }

  public Path dir() {
    return dir;
  }

  public Path caFile() {
    return dir.resolve(CA_FILE);
  }

  public Path certificateFile() {
    return dir.resolve(CERTIFICATE_FILE);
  }

  public Path privateKeyFile() {
    return dir.resolve(PRIVATE_KEY_FILE);
  }

  public Path trustStore() {
    return dir.resolve(TRUSTSTORE_FILE);
  }

  public X509Certificate caCertificate() {
    return ca;
  }

  /** The certificate the services present (the latest one written). */
  public X509Certificate serverCertificate() {
    return server;
  }

  /**
   * A certificate signed by this run's CA and its key, written as {@code <name>.pem} (certificate
   * then CA) and {@code <name>-key.pem} (PKCS#8, owner-only) into this run's directory.
   *
   * @param certificate the certificate issued
   * @param certificateFile the certificate followed by the CA's
   * @param privateKeyFile its private key
   */
  public record IssuedCertificate(
      X509Certificate certificate, Path certificateFile, Path privateKeyFile) {}

  /**
   * A client certificate (extended key usage clientAuth only, no subject alternative names) for
   * mutual TLS, for example to an etcd started with {@code --client-cert-auth}. The subject is
   * {@code CN=<commonName>}; a server that maps certificates to users (etcd does, when a request
   * carries no token) sees that name.
   */
  public IssuedCertificate issueClientCertificate(String name, String commonName) {
    return issue(name, commonName, false);
  }

  /**
   * A certificate for both ends of a mutual-TLS link between peers (extended key usages serverAuth
   * and clientAuth, for {@code 127.0.0.1} and {@code localhost}), for example an etcd member's:
   * etcd presents the same certificate on its client and peer ports and as a client to its peers.
   */
  public IssuedCertificate issuePeerCertificate(String name, String commonName) {
    return issue(name, commonName, true);
  }

  private IssuedCertificate issue(String name, String commonName, boolean peer) {
    if (!name.matches("[A-Za-z0-9._-]+") || name.equals("server") || name.equals("ca")) {
      throw new IllegalArgumentException("not a file name of its own: " + name);
    }
    try {
      KeyPair keys = newKeyPair();
      X509Certificate cert = certificate(keys, caKeys, ca, commonName, peer);
      Path key = dir.resolve(name + "-key.pem");
      Path certificate = dir.resolve(name + ".pem");
      writeAtomically(key, pemPrivateKey(keys), true);
      writeAtomically(certificate, pem(cert) + pem(ca), false);
      log.atInfo()
          .addKeyValue("event", "tls.certificate.issued")
          .addKeyValue("file", certificate.toAbsolutePath().toString())
          .addKeyValue("subject", cert.getSubjectX500Principal().getName())
          .addKeyValue("serial", cert.getSerialNumber().toString(16))
          .addKeyValue("usage", peer ? "serverAuth,clientAuth" : "clientAuth")
          .log("issued a certificate from this run's local CA");
      return new IssuedCertificate(cert, certificate, key);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static X509Certificate certificate(
      KeyPair keys, KeyPair caKeys, X509Certificate ca, String commonName, boolean peer) {
    return peer
        ? leafCertificate(
            keys,
            caKeys,
            ca,
            commonName,
            true,
            KeyPurposeId.id_kp_serverAuth,
            KeyPurposeId.id_kp_clientAuth)
        : leafCertificate(keys, caKeys, ca, commonName, false, KeyPurposeId.id_kp_clientAuth);
  }

  private static X509Certificate issueServerCertificate(
      Path dir, KeyPair caKeys, X509Certificate ca) throws IOException {
    KeyPair keys = newKeyPair();
    X509Certificate cert = serverCertificate(keys, caKeys, ca);
    // Key first: a reload that sees the new certificate finds its key already there.
    writeAtomically(dir.resolve(PRIVATE_KEY_FILE), pemPrivateKey(keys), true);
    writeAtomically(dir.resolve(CERTIFICATE_FILE), pem(cert) + pem(ca), false);
    return cert;
  }

  private static KeyPair newKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static X509Certificate caCertificate(KeyPair caKeys) {
    try {
      X500Name name = new X500Name("CN=Fencepost local CA " + Long.toHexString(RANDOM.nextLong()));
      Instant now = Instant.now();
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
                  name,
                  serial(),
                  Date.from(now.minus(Duration.ofHours(1))),
                  Date.from(now.plus(VALIDITY)),
                  name,
                  caKeys.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
              .addExtension(
                  Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  extensions.createSubjectKeyIdentifier(caKeys.getPublic()));
      return sign(builder, caKeys);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static X509Certificate serverCertificate(
      KeyPair keys, KeyPair caKeys, X509Certificate ca) {
    return leafCertificate(keys, caKeys, ca, "localhost", true, KeyPurposeId.id_kp_serverAuth);
  }

  /**
   * A certificate of this run's CA for {@code commonName}, good for {@code purposes}; with {@code
   * loopbackNames} it also names 127.0.0.1 and localhost, as a server's or a peer's must for a
   * client that verifies host names.
   */
  private static X509Certificate leafCertificate(
      KeyPair keys,
      KeyPair caKeys,
      X509Certificate ca,
      String commonName,
      boolean loopbackNames,
      KeyPurposeId... purposes) {
    try {
      Instant now = Instant.now();
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
                  ca,
                  serial(),
                  Date.from(now.minus(Duration.ofHours(1))),
                  Date.from(now.plus(VALIDITY)),
                  new X500Name("CN=" + commonName),
                  keys.getPublic())
              .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
              .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
              .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes))
              .addExtension(
                  Extension.subjectKeyIdentifier,
                  false,
                  extensions.createSubjectKeyIdentifier(keys.getPublic()))
              .addExtension(
                  Extension.authorityKeyIdentifier,
                  false,
                  extensions.createAuthorityKeyIdentifier(ca));
      if (loopbackNames) {
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(
                new GeneralName[] {
                  new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                  new GeneralName(GeneralName.dNSName, "localhost")
                }));
      }
      return sign(builder, caKeys);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer)
      throws GeneralSecurityException {
    try {
      ContentSigner contentSigner =
          new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate());
      return new JcaX509CertificateConverter().getCertificate(builder.build(contentSigner));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  private static String pem(Object object) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    }
    return out.toString();
  }

  private static String pemPrivateKey(KeyPair keys) throws IOException {
    return pem(new JcaPKCS8Generator(keys.getPrivate(), null));
  }

  /** The JDK's CAs and {@code ca}: the JVMs of a run still trust what they trusted before. */
  private static KeyStore trustStore(X509Certificate ca) {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      TrustManagerFactory jdk =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      jdk.init((KeyStore) null);
      int n = 0;
      for (var manager : jdk.getTrustManagers()) {
        if (manager instanceof X509TrustManager x509) {
          for (X509Certificate issuer : x509.getAcceptedIssuers()) {
            store.setCertificateEntry("jdk-" + n++, issuer);
          }
        }
      }
      store.setCertificateEntry("fencepost-local-ca", ca);
      return store;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void writeTrustStore(Path file, X509Certificate ca) throws IOException {
    Path temp = Files.createTempFile(file.getParent(), ".truststore-", ".tmp");
    try (OutputStream out = Files.newOutputStream(temp)) {
      trustStore(ca).store(out, TRUSTSTORE_PASSWORD.toCharArray());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static SSLContext sslContext(KeyStore trust) {
    try {
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, factory.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void createPrivateDirectory(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
  }

  /**
   * Writes {@code text} to a temporary file in the same directory (owner-only from its creation
   * when {@code secret}) and moves it over {@code file}: a reader sees the old file or the new one,
   * never half of one, and a key is never readable by others, even briefly.
   */
  private static void writeAtomically(Path file, String text, boolean secret) throws IOException {
    Path temp =
        Files.createTempFile(
            file.getParent(),
            "." + file.getFileName(),
            ".tmp",
            PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString(secret ? "rw-------" : "rw-r--r--")));
    Files.writeString(temp, text, StandardCharsets.US_ASCII);
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
