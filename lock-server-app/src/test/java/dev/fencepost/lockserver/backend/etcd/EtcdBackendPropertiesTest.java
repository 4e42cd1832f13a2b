package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

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
}
