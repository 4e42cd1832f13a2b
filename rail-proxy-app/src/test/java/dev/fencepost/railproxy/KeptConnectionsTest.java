package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A caller's kept-alive connection stays open for as many requests as it sends (ADR 0232): the
 * proxy started as {@code main} starts it, on a real port, answers 250 requests on one TCP
 * connection without ever asking to close it. Tomcat's default would close it at the 100th.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    useMainMethod = SpringBootTest.UseMainMethod.ALWAYS)
class KeptConnectionsTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  static final WireMockServer rail = ProxyUnderTest.settlingRail("R");

  @LocalServerPort int port;

  @DynamicPropertySource
  static void wire(DynamicPropertyRegistry registry) {
    ProxyUnderTest.register(registry, proxydb);
    registry.add("fencepost.rail.base-url", rail::baseUrl);
  }

  @AfterAll
  static void stopRail() {
    rail.stop();
  }

  @Test
  void aCallersConnectionIsKeptPastAHundredRequests() throws IOException {
    List<String> closing = new ArrayList<>();
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      for (int i = 1; i <= 250; i++) {
        // No token: the answer is 401 and nothing is recorded, which is all this test needs of
        // a request (ProxyAccessTest covers what a refused call changes).
        out.write(
            "GET /v1/submissions/po-1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        Response response = Response.read(in);
        assertThat(response.status()).as("answer %d", i).isEqualTo(401);
        if (response.closes()) {
          closing.add("answer " + i);
          break;
        }
      }
    }
    assertThat(closing).as("answers that closed the connection").isEmpty();
  }

  /** An HTTP/1.1 answer's status and whether it closes the connection; its body is skipped. */
  record Response(int status, boolean closes) {

    static Response read(InputStream in) throws IOException {
      String statusLine = line(in);
      int status = Integer.parseInt(statusLine.split(" ")[1]);
      boolean closes = false;
      long length = 0;
      boolean chunked = false;
      for (String header = line(in); !header.isEmpty(); header = line(in)) {
        String h = header.toLowerCase(Locale.ROOT);
        if (h.startsWith("connection:") && h.contains("close")) {
          closes = true;
        } else if (h.startsWith("content-length:")) {
          length = Long.parseLong(h.substring("content-length:".length()).trim());
        } else if (h.startsWith("transfer-encoding:") && h.contains("chunked")) {
          chunked = true;
        }
      }
      if (chunked) {
        for (long size = Long.parseLong(line(in).trim(), 16); size > 0; ) {
          in.readNBytes((int) size);
          line(in);
          size = Long.parseLong(line(in).trim(), 16);
        }
        line(in);
      } else {
        in.readNBytes((int) length);
      }
      return new Response(status, closes);
    }

    private static String line(InputStream in) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      for (int b = in.read(); b != '\n'; b = in.read()) {
        if (b < 0) {
          throw new IOException("the connection closed mid-answer");
        }
        if (b != '\r') {
          bytes.write(b);
        }
      }
      return bytes.toString(StandardCharsets.US_ASCII);
    }
  }
}
