package dev.fencepost.lock.client.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.http.OutboundHttp;
import dev.fencepost.launcher.LocalTls;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLServerSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreDetails;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;

/**
 * The starter's transport (ADR 0197: {@link OutboundHttp}) over TLS (ADR 0150), against a loopback
 * TLS peer presenting the local run's certificate: with the JVM's default trust set to the run's CA
 * the answer comes over one kept-alive TLS connection, and with another run's CA the handshake
 * fails and nothing is sent.
 */
class LockServerTransportTlsTest {

  @TempDir Path dir;

  private LocalTls tls;
  private SSLServerSocket server;
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();

  @BeforeEach
  void start() throws Exception {
    tls = LocalTls.generate(dir.resolve("tls"));
    SslBundle bundle =
        SslBundle.of(
            new PemSslStoreBundle(
                PemSslStoreDetails.forCertificate("file:" + tls.certificateFile())
                    .withPrivateKey("file:" + tls.privateKeyFile()),
                null));
    server =
        (SSLServerSocket)
            bundle
                .createSslContext()
                .getServerSocketFactory()
                .createServerSocket(0, 10, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::serve, "tls-peer");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private SSLContext jvmDefault;

  @BeforeEach
  void rememberTheJvmsTrust() throws Exception {
    jvmDefault = SSLContext.getDefault();
  }

  @AfterEach
  void stop() throws IOException {
    SSLContext.setDefault(jvmDefault);
    server.close();
  }

  /** Answers every request of every connection with 200 "ok", keeping the connection alive. */
  private void serve() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        accepted.incrementAndGet();
        Thread connection = new Thread(() -> answer(socket), "tls-peer-connection");
        connection.setDaemon(true);
        connection.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void answer(Socket socket) {
    try (socket) {
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
      OutputStream out = socket.getOutputStream();
      while (true) {
        String line = in.readLine();
        if (line == null) {
          return;
        }
        while (!line.isEmpty()) {
          line = in.readLine();
        }
        requests.incrementAndGet();
        out.write(
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (IOException e) {
      // the client went away, or failed the handshake
    }
  }

  /** A GET over a new client whose JVM default trust is {@code trust} (as a service's is). */
  private String get(SSLContext trust, String path) throws IOException {
    SSLContext.setDefault(trust);
    try (OutboundHttp http = OutboundHttp.builder().build()) {
      return get(http.requestFactory(), path);
    }
  }

  private String get(ClientHttpRequestFactory transport, String path) throws IOException {
    URI uri = URI.create("https://127.0.0.1:" + server.getLocalPort() + path);
    try (ClientHttpResponse response = transport.createRequest(uri, HttpMethod.GET).execute()) {
      return new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void aClientTrustingTheRunCaTalksOverOneKeptAliveTlsConnection() throws IOException {
    SSLContext.setDefault(tls.sslContext());
    try (OutboundHttp http = OutboundHttp.builder().build()) {
      assertThat(get(http.requestFactory(), "/a")).isEqualTo("ok");
      assertThat(get(http.requestFactory(), "/b")).isEqualTo("ok");
    }

    assertThat(accepted).hasValue(1);
    assertThat(requests).hasValue(2);
  }

  @Test
  void aClientThatDoesNotTrustTheRunCaFailsTheHandshakeAndSendsNothing() {
    LocalTls stranger = LocalTls.generate(dir.resolve("stranger"));

    assertThatThrownBy(() -> get(stranger.sslContext(), "/a")).isInstanceOf(SSLException.class);
    assertThat(requests).hasValue(0);
  }
}
