package dev.fencepost.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The README's run command brings up a lock server a person can drive with curl. */
class LocalStackTest {

  @Test
  void theLocalStackServesTheLockApiOnEmbeddedPostgres() throws Exception {
    try (LocalStack stack = LocalStack.start(new LocalStack.Options(0, false))) {
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> session =
          http.send(
              HttpRequest.newBuilder(URI.create(stack.lockServerUrl() + "/v1/sessions"))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString("{\"owner\":\"me\",\"ttlMillis\":15000}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(session.statusCode()).isEqualTo(201);
      assertThat(session.body()).contains("\"sessionId\"");
    }
  }
}
