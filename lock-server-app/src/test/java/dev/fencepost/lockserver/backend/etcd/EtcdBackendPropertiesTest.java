package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class EtcdBackendPropertiesTest {

  private static EtcdBackendProperties bind(Map<String, String> properties) {
    return new Binder(new MapConfigurationPropertySource(properties))
        .bindOrCreate("fencepost.lock.etcd", EtcdBackendProperties.class);
  }

  @Test
  void endpointsAreACommaSeparatedListOfMemberUrls() {
    EtcdBackendProperties properties =
        bind(
            Map.of(
                "fencepost.lock.etcd.endpoints",
                "http://10.0.0.1:2379,http://10.0.0.2:2379,http://10.0.0.3:2379",
                "fencepost.lock.etcd.key-prefix",
                "/payouts/",
                "fencepost.lock.etcd.call-timeout",
                "750ms",
                "fencepost.lock.etcd.operation-timeout",
                "5s",
                "fencepost.lock.etcd.revision-floor",
                "123456"));

    assertThat(properties.endpoints())
        .containsExactly("http://10.0.0.1:2379", "http://10.0.0.2:2379", "http://10.0.0.3:2379");
    assertThat(properties.keyPrefix()).isEqualTo("/payouts/");
    assertThat(properties.callTimeout()).isEqualTo(Duration.ofMillis(750));
    assertThat(properties.operationTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(properties.revisionFloor()).isEqualTo(123456L);
  }

  @Test
  void defaultsSuitALocalEtcdAndAnElectionOfAboutASecond() {
    EtcdBackendProperties properties = bind(Map.of());

    assertThat(properties.endpoints()).isEqualTo(List.of("http://127.0.0.1:2379"));
    assertThat(properties.keyPrefix()).isEqualTo("/fencepost/");
    assertThat(properties.callTimeout()).isEqualTo(Duration.ofMillis(500));
    assertThat(properties.operationTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(properties.revisionFloor()).as("no restore pending").isZero();
    assertThat(properties.leaderPoll()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void theLeaderPollIsBoundAndRefusedBelowOneSecond() {
    assertThat(bind(Map.of("fencepost.lock.etcd.leader-poll", "30s")).leaderPoll())
        .isEqualTo(Duration.ofSeconds(30));
    assertThatThrownBy(() -> bind(Map.of("fencepost.lock.etcd.leader-poll", "200ms")))
        .hasRootCauseMessage("fencepost.lock.etcd.leader-poll must be at least 1s");
  }

  @Test
  void anOperationTimeoutShorterThanOneCallIsRefusedAtStartup() {
    assertThatThrownBy(
            () ->
                bind(
                    Map.of(
                        "fencepost.lock.etcd.call-timeout", "2s",
                        "fencepost.lock.etcd.operation-timeout", "1s")))
        .hasRootCauseMessage(
            "fencepost.lock.etcd.operation-timeout must be at least the call-timeout");
  }

  @Test
  void byDefaultTheBackendIsPlaintextWithoutAUser() {
    EtcdBackendProperties properties = bind(Map.of());

    assertThat(properties.usesTls()).isFalse();
    assertThat(properties.tls().caFile()).isNull();
    assertThat(properties.tls().certificateFile()).isNull();
    assertThat(properties.tls().keyFile()).isNull();
    assertThat(properties.tls().authority()).isNull();
    assertThat(properties.user()).isNull();
    assertThat(properties.password()).isNull();
  }

  @Test
  void tlsAndAuthenticationBindFromTheirProperties() {
    EtcdBackendProperties properties =
        bind(
            Map.of(
                "fencepost.lock.etcd.endpoints",
                    "https://etcd-0.etcd:2379,https://etcd-1.etcd:2379",
                "fencepost.lock.etcd.tls.ca-file", "/etc/etcd-client/ca.crt",
                "fencepost.lock.etcd.tls.certificate-file", "/etc/etcd-client/tls.crt",
                "fencepost.lock.etcd.tls.key-file", "/etc/etcd-client/tls.key",
                "fencepost.lock.etcd.tls.authority", "etcd.fencepost.svc",
                "fencepost.lock.etcd.user", "fencepost-lock-server",
                "fencepost.lock.etcd.password", "from-a-secret"));

    assertThat(properties.usesTls()).isTrue();
    assertThat(properties.tls().caFile()).isEqualTo(Path.of("/etc/etcd-client/ca.crt"));
    assertThat(properties.tls().certificateFile()).isEqualTo(Path.of("/etc/etcd-client/tls.crt"));
    assertThat(properties.tls().keyFile()).isEqualTo(Path.of("/etc/etcd-client/tls.key"));
    assertThat(properties.tls().authority()).isEqualTo("etcd.fencepost.svc");
    assertThat(properties.user()).isEqualTo("fencepost-lock-server");
    assertThat(properties.password()).isEqualTo("from-a-secret");
  }

  @Test
  void httpsEndpointsWithoutACaAreRefusedAtStartup() {
    assertThatThrownBy(() -> bind(Map.of("fencepost.lock.etcd.endpoints", "https://etcd:2379")))
        .hasRootCauseMessage(
            "fencepost.lock.etcd.endpoints are https:// but fencepost.lock.etcd.tls.ca-file is not"
                + " set: name the CA that signed etcd's certificates");
  }

  @Test
  void tlsFilesWithHttpEndpointsAreRefusedAtStartup() {
    assertThatThrownBy(() -> bind(Map.of("fencepost.lock.etcd.tls.ca-file", "/ca.pem")))
        .rootCause()
        .hasMessageContaining("but the endpoints are http://");
  }

  @Test
  void endpointsMixingHttpAndHttpsAreRefusedAtStartup() {
    assertThatThrownBy(
            () ->
                bind(
                    Map.of(
                        "fencepost.lock.etcd.endpoints", "https://a:2379,http://b:2379",
                        "fencepost.lock.etcd.tls.ca-file", "/ca.pem")))
        .rootCause()
        .hasMessageContaining("mix http:// and https://");
  }

  @Test
  void aClientCertificateWithoutItsKeyIsRefusedAtStartup() {
    assertThatThrownBy(
            () ->
                bind(
                    Map.of(
                        "fencepost.lock.etcd.endpoints", "https://a:2379",
                        "fencepost.lock.etcd.tls.ca-file", "/ca.pem",
                        "fencepost.lock.etcd.tls.certificate-file", "/client.pem")))
        .rootCause()
        .hasMessageContaining("go together");
  }

  @Test
  void aUserWithoutAPasswordIsRefusedAtStartup() {
    assertThatThrownBy(() -> bind(Map.of("fencepost.lock.etcd.user", "fencepost-lock-server")))
        .hasRootCauseMessage(
            "fencepost.lock.etcd.user is set but fencepost.lock.etcd.password is not: supply it at"
                + " run time (FENCEPOST_LOCK_ETCD_PASSWORD)");
  }

  @Test
  void aBlankUserAndPasswordMeanNoUser() {
    EtcdBackendProperties properties =
        bind(Map.of("fencepost.lock.etcd.user", "", "fencepost.lock.etcd.password", ""));

    assertThat(properties.user()).isNull();
    assertThat(properties.password()).isNull();
  }

  @Test
  void aPasswordWithoutAUserIsRefusedAtStartup() {
    assertThatThrownBy(() -> bind(Map.of("fencepost.lock.etcd.password", "secret")))
        .hasRootCauseMessage(
            "fencepost.lock.etcd.password is set but fencepost.lock.etcd.user is not");
  }

  @Test
  void theLockServerDoesNotStartWhenATlsFileIsMissing(@TempDir Path dir) throws Exception {
    Path ca = Files.writeString(dir.resolve("ca.pem"), "not read: the key file is missing");
    new ApplicationContextRunner()
        .withUserConfiguration(EtcdBackendConfiguration.class)
        .withPropertyValues(
            "fencepost.lock.backend=etcd",
            "fencepost.lock.etcd.endpoints=https://127.0.0.1:2379",
            "fencepost.lock.etcd.tls.ca-file=" + ca,
            "fencepost.lock.etcd.tls.certificate-file=" + ca,
            "fencepost.lock.etcd.tls.key-file=" + dir.resolve("missing-key.pem"))
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessage(
                        "fencepost.lock.etcd.tls.key-file="
                            + dir.resolve("missing-key.pem")
                            + " is not a readable file"));
  }
}
