package dev.fencepost.reconciliation;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.Fault;
import dev.fencepost.http.OutboundHttp;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A source is read with the reconciler's token, asked once, never redirected, and every way of not
 * answering makes the run fail naming the source (UC-07).
 */
class SourceReaderTest {

  private final WireMockServer source = new WireMockServer(wireMockConfig().dynamicPort());
  private SourceReader reader;

  @BeforeEach
  void start() {
    source.start();
    // Generous: a cold JVM's first request may take most of a second on a busy machine.
    reader = new SourceReader("proxy", source.baseUrl() + "/", Duration.ofSeconds(5), () -> "r-1");
  }

  @AfterEach
  void stop() {
    source.stop();
  }

  @Test
  void anAnswerOfAnyStatusComesBackWholeAndCarriedTheToken() {
    source.stubFor(
        get("/v1/submissions/p-1").willReturn(aResponse().withStatus(404).withBody("{}")));

    OutboundHttp.Answer answer = reader.get("/v1/submissions/p-1");

    assertThat(answer.statusCode()).isEqualTo(404);
    assertThat(answer.body()).isEqualTo("{}");
    source.verify(
        getRequestedFor(urlEqualTo("/v1/submissions/p-1"))
            .withHeader("Authorization", equalTo("Bearer r-1")));
  }

  @Test
  void aSourceThatDropsTheConnectionIsUnavailableAndWasAskedOnce() {
    source.stubFor(get("/v1/submissions").willReturn(aResponse().withFault(Fault.EMPTY_RESPONSE)));

    assertThatThrownBy(() -> reader.get("/v1/submissions"))
        .isInstanceOf(SourceUnavailableException.class)
        .hasMessageContaining("proxy unreachable");
    source.verify(1, getRequestedFor(urlEqualTo("/v1/submissions")));
  }

  @Test
  void aSourceSlowerThanTheTimeoutIsUnavailable() {
    source.stubFor(get("/v1/submissions").willReturn(aResponse().withFixedDelay(3000)));
    SourceReader impatient =
        new SourceReader("proxy", source.baseUrl(), Duration.ofMillis(500), () -> "r-1");

    assertThatThrownBy(() -> impatient.get("/v1/submissions"))
        .isInstanceOf(SourceUnavailableException.class);
  }

  @Test
  void aRedirectIsAnAnswerNotFollowed() {
    source.stubFor(
        get("/v1/submissions")
            .willReturn(aResponse().withStatus(302).withHeader("Location", "/x")));

    assertThat(reader.get("/v1/submissions").statusCode()).isEqualTo(302);
    source.verify(0, getRequestedFor(urlEqualTo("/x")));
  }

  @Test
  void withoutATokenNothingIsAsked() {
    SourceReader tokenless =
        new SourceReader(
            "rail statement",
            source.baseUrl(),
            Duration.ofSeconds(1),
            () -> {
              throw new IllegalStateException("issuer down");
            });

    assertThatThrownBy(() -> tokenless.get("/rail/statements"))
        .isInstanceOf(SourceUnavailableException.class)
        .hasMessageContaining("no credentials for the rail statement");
    assertThat(source.getAllServeEvents()).isEmpty();
  }
}
