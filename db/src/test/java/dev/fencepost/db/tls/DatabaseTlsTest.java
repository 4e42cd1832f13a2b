package dev.fencepost.db.tls;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.db.TestPools;
import dev.fencepost.db.durability.DurableCommitsAutoConfiguration;
import dev.fencepost.db.timeouts.DatabaseTimeoutsAutoConfiguration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every PostgreSQL pool of an application gets pgjdbc's TLS settings from {@code
 * fencepost.db.tls.*}; settings that contradict each other stop the application. That they hold on
 * a real server (verify-full connects with the right CA and is refused with another CA or another
 * host name) is shown by the launcher's {@code DatabaseTlsOnARealServerTest}.
 */
class DatabaseTlsTest {

  @TempDir static Path dir;

  private final ApplicationContextRunner runner =
      TestPools.runner(
          TestPools::postgres,
          DatabaseTlsAutoConfiguration.class,
          DatabaseTimeoutsAutoConfiguration.class,
          DurableCommitsAutoConfiguration.class);

  private static Path file(String name) throws IOException {
    Path file = dir.resolve(name);
    if (!Files.exists(file)) {
      Files.writeString(file, "not read by this test");
    }
    return file;
  }

  private static java.util.Properties properties(
      org.springframework.context.ApplicationContext context) {
    return TestPools.properties(context);
  }

  @Test
  void byDefaultEveryPoolRequiresTlsWithoutTrustingAnyCaFile() {
    runner.run(
        context -> {
          assertThat(properties(context))
              .containsEntry("sslmode", "require")
              .doesNotContainKeys("sslrootcert", "sslcert", "sslkey", "sslfactory");
          // Beside the other settings every pool gets.
          assertThat(properties(context)).containsKey("socketTimeout");
        });
  }

  @Test
  void verifyFullTrustsOnlyTheConfiguredCa() throws IOException {
    Path ca = file("ca.pem");
    runner
        .withPropertyValues("fencepost.db.tls.mode=verify-full", "fencepost.db.tls.root-cert=" + ca)
        .run(
            context ->
                assertThat(properties(context))
                    .containsEntry("sslmode", "verify-full")
                    .containsEntry("sslrootcert", ca.toAbsolutePath().toString()));
  }

  @Test
  void aClientCertificateAndItsKeyArePassedForCertificateAuthentication() throws IOException {
    Path ca = file("ca.pem");
    Path cert = file("client.pem");
    Path key = file("client.pk8");
    runner
        .withPropertyValues(
            "fencepost.db.tls.mode=verify-ca",
            "fencepost.db.tls.root-cert=" + ca,
            "fencepost.db.tls.client-cert=" + cert,
            "fencepost.db.tls.client-key=" + key,
            "fencepost.db.tls.client-key-password=from-a-secret")
        .run(
            context ->
                assertThat(properties(context))
                    .containsEntry("sslmode", "verify-ca")
                    .containsEntry("sslcert", cert.toAbsolutePath().toString())
                    .containsEntry("sslkey", key.toAbsolutePath().toString())
                    .containsEntry("sslpassword", "from-a-secret"));
  }

  @Test
  void aPoolOnAPgSimpleDataSourceGetsTheSettingsUnderItsBeanPropertyNames() throws IOException {
    Path ca = file("ca.pem");
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DatabaseTlsAutoConfiguration.class))
        .withPropertyValues("fencepost.db.tls.mode=verify-full", "fencepost.db.tls.root-cert=" + ca)
        .withBean(
            "simple",
            HikariDataSource.class,
            () -> {
              HikariDataSource pool = new HikariDataSource();
              pool.setDataSourceClassName("org.postgresql.ds.PGSimpleDataSource");
              return pool;
            })
        .run(
            context ->
                assertThat(properties(context))
                    .containsEntry("sslMode", "verify-full")
                    .containsEntry("sslRootCert", ca.toAbsolutePath().toString()));
  }

  @Test
  void verifyingWithoutACaStopsTheApplication() {
    runner
        .withPropertyValues("fencepost.db.tls.mode=verify-full")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("fencepost.db.tls.root-cert is required"));
  }

  @Test
  void aCaFileThatCannotBeReadStopsTheApplication() {
    runner
        .withPropertyValues(
            "fencepost.db.tls.mode=verify-full",
            "fencepost.db.tls.root-cert=" + dir.resolve("missing.pem"))
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("missing.pem")
                    .hasMessageContaining("is not a readable file"));
  }

  @Test
  void aCaThatWouldBeIgnoredStopsTheApplication() throws IOException {
    Path ca = file("ca.pem");
    runner
        .withPropertyValues("fencepost.db.tls.root-cert=" + ca)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("does not verify the server's certificate"));
  }

  @Test
  void aModeThatFallsBackToPlaintextIsRefused() {
    runner
        .withPropertyValues("fencepost.db.tls.mode=prefer")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "Failed to bind properties under 'fencepost.db.tls.mode'")
                    .hasStackTraceContaining("prefer"));
  }

  @Test
  void aClientCertificateWithoutItsKeyStopsTheApplication() throws IOException {
    Path cert = file("client.pem");
    runner
        .withPropertyValues("fencepost.db.tls.client-cert=" + cert)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("client-cert is set without"));
  }

  @Test
  void aClientCertificateWithoutTlsStopsTheApplication() throws IOException {
    Path cert = file("client.pem");
    Path key = file("client.pk8");
    runner
        .withPropertyValues(
            "fencepost.db.tls.mode=disable",
            "fencepost.db.tls.client-cert=" + cert,
            "fencepost.db.tls.client-key=" + key)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("mode is disable"));
  }

  @Test
  void disableIsAnExplicitChoiceForAnEncryptingConnector() {
    runner
        .withPropertyValues("fencepost.db.tls.mode=disable")
        .run(context -> assertThat(properties(context)).containsEntry("sslmode", "disable"));
  }

  @Test
  void aTlsSettingInTheJdbcUrlStopsTheApplicationRatherThanOverrideThese() {
    TestPools.runner(
            () ->
                TestPools.pool("jdbc:postgresql://db:5432/paydb?ApplicationName=x&sslmode=disable"),
            DatabaseTlsAutoConfiguration.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("the JDBC URL sets sslmode")
                    .hasMessageNotContaining("db:5432"));
  }

  @Test
  void aTlsSettingAmongThePoolsOwnPropertiesStopsTheApplication() {
    TestPools.runner(
            () -> {
              HikariDataSource pool = TestPools.postgres();
              pool.addDataSourceProperty("sslfactory", "org.postgresql.ssl.NonValidatingFactory");
              return pool;
            },
            DatabaseTlsAutoConfiguration.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("data source property sslfactory"));
  }
}
