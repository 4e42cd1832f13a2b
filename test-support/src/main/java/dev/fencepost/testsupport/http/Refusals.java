package dev.fencepost.testsupport.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;

/**
 * What every Fencepost application answers to bad input, checked the same way in every module's
 * generated bad-input tests: a 4xx (never a 5xx, never a success), {@code
 * application/problem+json}, and a stable {@code code} in UPPER_SNAKE_CASE; and nothing changed in
 * the stores the caller names.
 */
public final class Refusals {

  private Refusals() {}

  /**
   * Asserts {@code response} is a refusal as above.
   *
   * @return the problem's code
   */
  public static String assertRefused(HttpResponse<String> response) {
    assertThat(response.statusCode())
        .as("%s %s answered %s", response.request().method(), response.uri(), response.body())
        .isBetween(400, 499);
    assertThat(response.headers().firstValue("Content-Type"))
        .as("content type of %s", response.body())
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    JsonNode problem = TestHttp.json(response);
    assertThat(problem.path("code").asString())
        .as("code of %s", response.body())
        .matches("[A-Z][A-Z0-9_]*");
    assertThat(problem.path("status").asInt())
        .as("status of %s", response.body())
        .isEqualTo(response.statusCode());
    return problem.path("code").asString();
  }

  /**
   * Makes {@code call}, asserts it is refused as above and that {@code snapshot} (a text of every
   * row or entry the call must not change) is the same after as before.
   *
   * @return the refusal
   */
  public static HttpResponse<String> assertRefusedWithoutChange(
      Supplier<?> snapshot, TestHttp.Call<HttpResponse<String>> call) {
    Object before = snapshot.get();
    HttpResponse<String> response = TestHttp.unchecked(call);
    assertRefused(response);
    assertThat(snapshot.get()).as("the stores after the refusal").isEqualTo(before);
    return response;
  }
}
