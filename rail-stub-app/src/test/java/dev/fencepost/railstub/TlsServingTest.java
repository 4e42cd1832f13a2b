package dev.fencepost.railstub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencepost.launcher.LocalTls;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A service started with the launcher's SSL bundle arguments (ADR 0150): it serves HTTPS only, with
 * the certificate the run's CA signed; a client that does not trust that CA cannot talk to it; and
 * when the certificate files are replaced on disk it presents the new certificate without a
 * restart. The rail stub stands for every service: they are configured the same way (Spring Boot's
 * {@code server.ssl.bundle}).
 */
@ExtendWith(OutputCaptureExtension.class)
class TlsServingTest {

  @TempDir Path dir;

  private ConfigurableApplicationContext stub;
  private int managementPort;

  @AfterEach
  void stop() {
    if (stub != null) {
      stub.close();
    }
  }

  private int start(LocalTls tls) {
    List<String> args = new ArrayList<>(tls.serverArgs());
    args.add("--server.port=0");
    args.add("--management.server.port=0");
    args.add("--server.address=127.0.0.1");
    args.add("--spring.main.banner-mode=off");
    // Seconds, not Boot's default 10 s, so the reload test is quick.
    args.add("--spring.ssl.bundle.watch.file.quiet-period=200ms");
    args.add(
        "--spring.security.oauth2.resourceserver.jwt.jwk-set-uri=" + StubHttp.ISSUER.jwkSetUri());
    stub = RailStubApplication.application().run(args.toArray(String[]::new));
    managementPort = Integer.parseInt(stub.getEnvironment().getProperty("local.management.port"));
    return Integer.parseInt(stub.getEnvironment().getProperty("local.server.port"));
  }

  private static HttpResponse<String> health(SSLContext trust, String url) throws Exception {
    HttpClient client =
        HttpClient.newBuilder().sslContext(trust).connectTimeout(Duration.ofSeconds(5)).build();
    return client.send(
        HttpRequest.newBuilder(URI.create(url + "/actuator/health"))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The certificate the server presents to a new connection (verified against {@code tls}). */
  private static BigInteger presentedSerial(LocalTls tls, int port) throws Exception {
    try (SSLSocket socket =
        (SSLSocket) tls.sslContext().getSocketFactory().createSocket("127.0.0.1", port)) {
      var parameters = socket.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      socket.setSSLParameters(parameters);
      socket.startHandshake();
      return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }

  @Test
  void servesHttpsWithTheRunCertificateToAClientThatTrustsTheRunCa() throws Exception {
    LocalTls tls = LocalTls.generate(dir.resolve("tls"));
    int port = start(tls);

    HttpResponse<String> byIp = health(tls.sslContext(), "https://127.0.0.1:" + managementPort);
    HttpResponse<String> byName = health(tls.sslContext(), "https://localhost:" + managementPort);

    assertThat(byIp.statusCode()).isEqualTo(200);
    assertThat(byIp.body()).contains("UP");
    assertThat(byName.statusCode()).isEqualTo(200);
    assertThat(presentedSerial(tls, port)).isEqualTo(tls.serverCertificate().getSerialNumber());
    assertThat(presentedSerial(tls, managementPort))
        .isEqualTo(tls.serverCertificate().getSerialNumber());
  }

  @Test
  void refusesPlainHttpOnItsPorts() throws Exception {
    LocalTls tls = LocalTls.generate(dir.resolve("tls"));
    int port = start(tls);

    HttpResponse<String> plain = health(tls.sslContext(), "http://127.0.0.1:" + managementPort);
    HttpResponse<String> plainApi = health(tls.sslContext(), "http://127.0.0.1:" + port);

    // Tomcat answers a plain request on a TLS port with 400 and serves nothing of the application.
    assertThat(plain.statusCode()).isEqualTo(400);
    assertThat(plain.body()).doesNotContain("UP");
    assertThat(plainApi.statusCode()).isEqualTo(400);
  }

  @Test
  void aClientThatDoesNotTrustTheRunCaFailsTheHandshake() throws Exception {
    LocalTls tls = LocalTls.generate(dir.resolve("tls"));
    int port = start(tls);
    // Negative control: the JDK's CAs and another run's CA, but not this run's.
    LocalTls stranger = LocalTls.generate(dir.resolve("stranger"));

    assertThatThrownBy(() -> health(stranger.sslContext(), "https://127.0.0.1:" + port))
        .isInstanceOf(SSLHandshakeException.class);
    assertThatThrownBy(() -> health(stranger.sslContext(), "https://127.0.0.1:" + managementPort))
        .isInstanceOf(SSLHandshakeException.class);
  }

  @Test
  void presentsARenewedCertificateOnceItsFilesAreReplacedWithoutARestart(CapturedOutput output)
      throws Exception {
    LocalTls tls = LocalTls.generate(dir.resolve("tls"));
    int port = start(tls);
    assertThat(presentedSerial(tls, port)).isEqualTo(tls.serverCertificate().getSerialNumber());

    LocalTls renewed = tls.renewServerCertificate();

    assertThat(renewed.serverCertificate().getSerialNumber())
        .isNotEqualTo(tls.serverCertificate().getSerialNumber());
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(presentedSerial(tls, port))
                    .isEqualTo(renewed.serverCertificate().getSerialNumber()));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(presentedSerial(tls, managementPort))
                    .isEqualTo(renewed.serverCertificate().getSerialNumber()));
    assertThat(health(tls.sslContext(), "https://127.0.0.1:" + managementPort).statusCode())
        .isEqualTo(200);
    assertThat(output)
        .contains("\"event\":\"tls.bundle.reloaded\"")
        .contains(renewed.serverCertificate().getSerialNumber().toString(16));
  }
}
