package dev.fencepost.deploy.helm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.deploy.helm.Manifests.Doc;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Kubernetes refuses to change a StatefulSet's selector, serviceName, podManagementPolicy and
 * volumeClaimTemplates, so an upgrade that renders them differently fails (or, deleted and
 * recreated, orphans the members' volumes). Chart 0.1.0's rendering of them is kept as a test
 * resource; every later chart version must render exactly that (docs/deploy.md).
 */
class EtcdUpgradeSnapshotTest {

  static final String SNAPSHOT = "/helm/etcd-statefulset-immutable-0.1.0.json";
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  static JsonNode immutableFields(String rendered) {
    Doc statefulSet =
        Manifests.read(rendered).stream()
            .filter(d -> d.kind().equals("StatefulSet"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no etcd StatefulSet rendered"));
    Map<?, ?> spec = (Map<?, ?>) statefulSet.raw().get("spec");
    Map<String, Object> fields = new LinkedHashMap<>();
    for (String field :
        new String[] {"selector", "serviceName", "podManagementPolicy", "volumeClaimTemplates"}) {
      fields.put(field, spec.get(field));
    }
    return JSON.valueToTree(fields);
  }

  private static JsonNode snapshot() throws IOException {
    try (InputStream in = EtcdUpgradeSnapshotTest.class.getResourceAsStream(SNAPSHOT)) {
      assertThat(in).as("snapshot %s", SNAPSHOT).isNotNull();
      return JSON.readTree(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void theEtcdStatefulSetsImmutableFieldsAreThoseChart010Rendered() throws IOException {
    JsonNode current = immutableFields(HelmChart.render(Variant.ETCD_INTERNAL));

    assertThat(current)
        .as(
            "current rendering:%n%s",
            JSON.writerWithDefaultPrettyPrinter().writeValueAsString(current))
        .isEqualTo(snapshot());
  }

  @Test
  void bumpingTheChartVersionChangesNoImmutableField() throws IOException {
    String bumped = HelmChart.renderAsVersion(Variant.ETCD_INTERNAL, "0.2.0");

    assertThat(bumped).contains("helm.sh/chart: fencepost-0.2.0");
    assertThat(immutableFields(bumped)).isEqualTo(snapshot());
  }

  @Test
  void aChangedClaimTemplateOrPolicyIsCaught() throws IOException {
    JsonNode bigger =
        immutableFields(
            HelmChart.render(Variant.ETCD_INTERNAL, Map.of("etcd.internal.storage.size", "20Gi")));
    JsonNode otherClass =
        immutableFields(
            HelmChart.render(
                Variant.ETCD_INTERNAL,
                Map.of("etcd.internal.storage.storageClassName", "standard-rwo")));

    assertThat(bigger).isNotEqualTo(snapshot());
    assertThat(otherClass).isNotEqualTo(snapshot());
  }
}
