package dev.fencepost.security.impl;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * An application refuses to start on a database it has no credentials for, naming the missing
 * property, unless it runs in the local profile (ADR 0160).
 */
class DatabaseCredentialsTest {

  private final ApplicationContextRunner app =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(DatabaseCredentialsAutoConfiguration.class))
          .withUserConfiguration(WithDatabase.class)
          .withPropertyValues("fencepost.test.db.url=jdbc:postgresql://db:5432/paydb");

  @Test
  void withoutAUserNameTheApplicationDoesNotStartAndSaysWhichPropertyIsMissing() {
    app.withPropertyValues("fencepost.test.db.password=secret")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageStartingWith("fencepost.test.db.username is not set")
                    .hasMessageContaining("jdbc:postgresql://db:5432/paydb"));
  }

  @Test
  void withoutAPasswordTheApplicationDoesNotStartAndSaysWhichPropertyIsMissing() {
    app.withPropertyValues("fencepost.test.db.username=paydb_app", "fencepost.test.db.password=")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageStartingWith("fencepost.test.db.password is not set"));
  }

  @Test
  void withBothItStarts() {
    app.withPropertyValues(
            "fencepost.test.db.username=paydb_app", "fencepost.test.db.password=secret")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void inTheLocalProfileItStartsWithout() {
    app.withPropertyValues("spring.profiles.active=local")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void aConnectionWithoutAUrlIsNotCheckedForItIsNotUsed() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DatabaseCredentialsAutoConfiguration.class))
        .withUserConfiguration(WithDatabase.class)
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Configuration(proxyBeanMethods = false)
  @EnableConfigurationProperties(TestDatabase.class)
  static class WithDatabase {}

  /** Shaped like Boot's DataSourceProperties and payment-resource's PaydbProperties. */
  @ConfigurationProperties("fencepost.test.db")
  static class TestDatabase {
    private String url;
    private String username;
    private String password;

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getUsername() {
      return username;
    }

    public void setUsername(String username) {
      this.username = username;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }
  }
}
