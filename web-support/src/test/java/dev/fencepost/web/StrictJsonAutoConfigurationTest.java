package dev.fencepost.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.json.JsonMapper;

/**
 * The applications' JSON mapper refuses a scalar of the wrong type for a text or a whole number,
 * and reads the right types as before.
 */
class StrictJsonAutoConfigurationTest {

  record Body(String reason, Long token) {}

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  JacksonAutoConfiguration.class, StrictJsonAutoConfiguration.class));

  @Test
  void aScalarOfTheWrongTypeIsRefusedNotConverted() {
    runner.run(
        context -> {
          JsonMapper json = context.getBean(JsonMapper.class);
          for (String body :
              new String[] {
                "{\"reason\":true}",
                "{\"reason\":5}",
                "{\"reason\":1.5}",
                "{\"token\":\"7\"}",
                "{\"token\":1.5}",
                "{\"token\":false}"
              }) {
            assertThatThrownBy(() -> json.readValue(body, Body.class)).as(body).isNotNull();
          }
          assertThat(json.readValue("{\"reason\":\"ok\",\"token\":7}", Body.class))
              .isEqualTo(new Body("ok", 7L));
        });
  }

  @Test
  void withoutItJacksonWouldConvert() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
        .run(
            context ->
                assertThat(
                        context
                            .getBean(JsonMapper.class)
                            .readValue("{\"reason\":true}", Body.class)
                            .reason())
                    .isEqualTo("true"));
  }
}
