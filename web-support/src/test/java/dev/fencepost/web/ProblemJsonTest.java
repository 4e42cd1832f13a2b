package dev.fencepost.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.testsupport.logging.CapturedEvents;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An application with its own domain exception mapped in a subclass of {@link
 * ProblemJsonExceptionHandler}, over real HTTP: its own exception gets its own code, and every
 * other error (Spring MVC's rejections, an unexpected exception, a request Tomcat refuses) is
 * problem+json with the shared code. Free text with a control character is a 400 naming its field,
 * and a body over {@code fencepost.web.max-request-body-size} a 413, in both cases before the
 * controller does anything.
 */
@SpringBootTest(
    classes = ProblemJsonTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "server.address=127.0.0.1",
      "logging.structured.format.console=",
      "fencepost.web.max-request-body-size=1KB"
    })
class ProblemJsonTest {

  @RegisterExtension final CapturedEvents events = new CapturedEvents();

  @LocalServerPort int port;

  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @Test
  void theApplicationsOwnExceptionGetsItsOwnCode() throws Exception {
    HttpResponse<String> response = get("/things/missing");

    assertProblem(response, 404, "THING_NOT_FOUND");
    assertThat(json(response).get("type").asString())
        .isEqualTo("https://fencepost.dev/problems/thing_not_found");
    assertThat(json(response).get("thing").asString()).isEqualTo("missing");
  }

  @Test
  void anUnreadableBodyIsAnInvalidRequestWithoutTheParsersMessage() throws Exception {
    HttpResponse<String> response = post("/things", "application/json", "{\"name\":");

    assertProblem(response, 400, "INVALID_REQUEST");
    assertThat(json(response).get("detail").asString())
        .isEqualTo("malformed request body or parameters");
    assertThat(events.named("http.request.rejected"))
        .anySatisfy(
            e ->
                assertThat(e)
                    .containsEntry("code", "INVALID_REQUEST")
                    .containsEntry("path", "/things"));
  }

  @Test
  void aMistypedParameterIsAnInvalidRequest() throws Exception {
    assertProblem(get("/things?limit=many"), 400, "INVALID_REQUEST");
  }

  @Test
  void aWrongMediaTypeIs415() throws Exception {
    assertProblem(post("/things", "text/plain", "name=x"), 415, "UNSUPPORTED_MEDIA_TYPE");
  }

  @Test
  void anUnknownPathIs404() throws Exception {
    assertProblem(get("/nothing-here"), 404, "NOT_FOUND");
  }

  @Test
  void aWrongMethodIs405() throws Exception {
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(uri("/things/a")).DELETE().build(),
            HttpResponse.BodyHandlers.ofString());

    assertProblem(response, 405, "METHOD_NOT_ALLOWED");
  }

  @Test
  void anUnexpectedExceptionIs500WithoutDetailsAndIsLoggedAsAFailure() throws Exception {
    HttpResponse<String> response = get("/boom");

    assertProblem(response, 500, "INTERNAL_ERROR");
    assertThat(response.body()).doesNotContain("secret");
    assertThat(events.named("http.request.failed"))
        .singleElement()
        .satisfies(e -> assertThat(e).containsEntry("path", "/boom"));
  }

  @Test
  void aRequestTomcatRefusesBeforeRoutingIsProblemJsonToo() throws Exception {
    HttpResponse<String> response = get("/things/a%00b");

    assertProblem(response, 400, "INVALID_REQUEST");
  }

  @Test
  void freeTextWithAControlCharacterIs400NamingTheFieldAndTheControllerDoesNothing()
      throws Exception {
    for (String bad :
        new String[] {"a\\u0000b", "a\\tb", "a\\nb", "a\\rb", "\\u001b[31m", "a\\u007f"}) {
      int created = Things.CREATED.get();
      HttpResponse<String> response =
          post("/things", "application/json", "{\"name\":\"" + bad + "\"}");

      assertProblem(response, 400, "INVALID_REQUEST");
      assertThat(json(response).get("field").asString()).isEqualTo("name");
      assertThat(Things.CREATED.get()).isEqualTo(created);
    }
    assertThat(events.named("http.request.rejected"))
        .anySatisfy(e -> assertThat(e).containsEntry("field", "name"));
    // Text of any script is free text; only control characters are refused.
    HttpResponse<String> accepted =
        post("/things", "application/json", "{\"name\":\"Zoë 中文 🙂 it's \\\"fine\\\"\"}");
    assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(200);
  }

  @Test
  void aDeclaredBodyOverTheLimitIs413AndNeverReachesTheController() throws Exception {
    int created = Things.CREATED.get();
    HttpResponse<String> response =
        post("/things", "application/json", "{\"name\":\"" + "x".repeat(2048) + "\"}");

    assertProblem(response, 413, "PAYLOAD_TOO_LARGE");
    assertThat(Things.CREATED.get()).isEqualTo(created);
    assertThat(events.named("http.request.rejected"))
        .anySatisfy(e -> assertThat(e).containsEntry("code", "PAYLOAD_TOO_LARGE"));
  }

  @Test
  void aChunkedBodyOverTheLimitIs413AndNeverReachesTheController() throws Exception {
    int created = Things.CREATED.get();
    byte[] body = ("{\"name\":\"" + "x".repeat(2048) + "\"}").getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(uri("/things"))
                .header("Content-Type", "application/json")
                // No length known in advance: sent chunked.
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertProblem(response, 413, "PAYLOAD_TOO_LARGE");
    assertThat(Things.CREATED.get()).isEqualTo(created);
  }

  @Test
  void aChunkedBodyWithinTheLimitIsReadAsSent() throws Exception {
    byte[] body = "{\"name\":\"chunked\"}".getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(uri("/things"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(json(response).get("name").asString()).isEqualTo("chunked");
  }

  @Test
  void aFormWithinTheLimitKeepsItsParameters() throws Exception {
    HttpResponse<String> response =
        post("/forms", "application/x-www-form-urlencoded", "name=kept&other=also");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("kept");
  }

  private static void assertProblem(HttpResponse<String> response, int status, String code)
      throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    JsonNode body = json(response);
    assertThat(body.get("code").asString()).isEqualTo(code);
    assertThat(body.get("status").asInt()).isEqualTo(status);
  }

  private static JsonNode json(HttpResponse<String> response) {
    return JSON.readTree(response.body());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String contentType, String body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import({Things.class, ThingProblems.class})
  static class App {}

  record Thing(String name) {}

  static final class ThingNotFoundException extends RuntimeException {
    final String thing;

    ThingNotFoundException(String thing) {
      super("no thing " + thing);
      this.thing = thing;
    }
  }

  @RestController
  static class Things {

    @GetMapping("/things")
    String list(@RequestParam(defaultValue = "10") int limit) {
      return "[]";
    }

    @GetMapping("/things/{name}")
    Thing get(@PathVariable String name) {
      throw new ThingNotFoundException(name);
    }

    static final AtomicInteger CREATED = new AtomicInteger();

    @PostMapping("/things")
    Thing create(@RequestBody Thing thing) {
      FreeText.requireNoControlCharacters("name", thing.name());
      CREATED.incrementAndGet();
      return thing;
    }

    @PostMapping("/forms")
    String form(@RequestParam String name) {
      return name;
    }

    @GetMapping("/boom")
    String boom() {
      throw new IllegalStateException("secret internals");
    }
  }

  /** The application's own mapping: only its domain exception. */
  @RestControllerAdvice
  static class ThingProblems extends ProblemJsonExceptionHandler {

    @ExceptionHandler(ThingNotFoundException.class)
    ResponseEntity<Object> notFound(ThingNotFoundException e) {
      var problem = Problems.of(HttpStatus.NOT_FOUND, "THING_NOT_FOUND", e.getMessage());
      problem.setProperty("thing", e.thing);
      return Problems.response(problem);
    }
  }
}
