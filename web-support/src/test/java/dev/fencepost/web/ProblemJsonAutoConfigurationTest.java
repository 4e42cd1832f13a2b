package dev.fencepost.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.http.HttpStatus;

/** Which beans the auto-configuration gives, when it stays out, and the codes it uses. */
class ProblemJsonAutoConfigurationTest {

  private final WebApplicationContextRunner web =
      new WebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ProblemJsonAutoConfiguration.class));

  @Test
  void aServletApplicationWithoutItsOwnHandlerGetsTheSharedOneAndTheValve() {
    web.run(
        context ->
            assertThat(context)
                .hasSingleBean(ProblemJsonExceptionHandler.class)
                .hasSingleBean(TomcatContextCustomizer.class));
  }

  @Test
  void anApplicationsOwnSubclassReplacesTheSharedHandler() {
    web.withBean("ownProblems", OwnProblems.class, OwnProblems::new)
        .run(
            context -> {
              assertThat(context).hasSingleBean(ProblemJsonExceptionHandler.class);
              assertThat(context.getBean(ProblemJsonExceptionHandler.class))
                  .isInstanceOf(OwnProblems.class);
            });
  }

  @Test
  void aNonWebApplicationGetsNothing() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ProblemJsonAutoConfiguration.class))
        .run(context -> assertThat(context).doesNotHaveBean(ProblemJsonExceptionHandler.class));
  }

  @Test
  void codesOfStatusOnlyErrorsAreStable() {
    assertThat(Problems.codeFor(HttpStatus.BAD_REQUEST)).isEqualTo("INVALID_REQUEST");
    assertThat(Problems.codeFor(HttpStatus.NOT_FOUND)).isEqualTo("NOT_FOUND");
    assertThat(Problems.codeFor(HttpStatus.CONTENT_TOO_LARGE)).isEqualTo("PAYLOAD_TOO_LARGE");
    assertThat(Problems.codeFor(HttpStatus.INTERNAL_SERVER_ERROR)).isEqualTo("INTERNAL_ERROR");
    assertThat(Problems.codeFor(HttpStatus.I_AM_A_TEAPOT)).isEqualTo("HTTP_418");
    assertThatThrownBy(() -> Problems.of(HttpStatus.CONFLICT, "stale token", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a problem code is UPPER_SNAKE_CASE, got 'stale token'");
  }

  static class OwnProblems extends ProblemJsonExceptionHandler {}
}
