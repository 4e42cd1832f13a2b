package dev.fencepost.launcher.postgres;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A CA and a server certificate it signs for {@value #HOST} only: a server that presents it is
 * genuine as far as its CA goes, but is not the host a client on {@code 127.0.0.1} asked for.
 */
final class CertificateForAnotherHost {

  static final String HOST = "db.elsewhere.invalid";

  private static final SecureRandom RANDOM = new SecureRandom();

  private CertificateForAnotherHost() {}

  static EmbeddedPostgresServer.Tls writeInto(Path dir) throws Exception {
    Files.createDirectories(dir);
    KeyPair caKeys = keys();
    X500Name caName = new X500Name("CN=Another host's CA");
    X509Certificate ca =
        sign(
            new JcaX509v3CertificateBuilder(
                    caName, serial(), notBefore(), notAfter(), caName, caKeys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                .addExtension(
                    Extension.keyUsage,
                    true,
                    new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign)),
            caKeys);
    KeyPair serverKeys = keys();
    X509Certificate server =
        sign(
            new JcaX509v3CertificateBuilder(
                    ca,
                    serial(),
                    notBefore(),
                    notAfter(),
                    new X500Name("CN=" + HOST),
                    serverKeys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                .addExtension(
                    Extension.subjectAlternativeName,
                    false,
                    new GeneralNames(new GeneralName(GeneralName.dNSName, HOST))),
            caKeys);
    Path caFile = dir.resolve("ca.pem");
    Path certificate = dir.resolve("server.pem");
    Path key = dir.resolve("server-key.pem");
    Files.writeString(caFile, pem(ca));
    Files.writeString(certificate, pem(server) + pem(ca));
    Files.createFile(
        key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(key, pem(new JcaPKCS8Generator(serverKeys.getPrivate(), null)));
    return new EmbeddedPostgresServer.Tls(certificate, key, caFile);
  }

  private static KeyPair keys() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return generator.generateKeyPair();
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer)
      throws Exception {
    return new JcaX509CertificateConverter()
        .getCertificate(
            builder.build(
                new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  private static Date notBefore() {
    return Date.from(Instant.now().minus(Duration.ofHours(1)));
  }

  private static Date notAfter() {
    return Date.from(Instant.now().plus(Duration.ofDays(1)));
  }

  private static String pem(Object object) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    }
    return out.toString();
  }
}
