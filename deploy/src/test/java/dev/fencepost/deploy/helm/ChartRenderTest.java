package dev.fencepost.deploy.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.deploy.helm.Manifests.Doc;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every documented variant renders, and every object reads strictly into the 1.34 API model. */
class ChartRenderTest {

  @ParameterizedTest
  @EnumSource(Variant.class)
  void everyRenderedObjectReadsStrictlyIntoTheKubernetesModelOfItsKind(Variant variant) {
    List<Doc> docs = Manifests.read(HelmChart.render(variant));

    assertThat(docs).isNotEmpty();
    assertThat(docs).allSatisfy(d -> assertThat(Manifests.unknownFields(d.model())).isEmpty());
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void theLockServerRunsTheBackendTheVariantChose(Variant variant) {
    List<Doc> docs = Manifests.read(HelmChart.render(variant));

    assertThat(config(docs, "fencepost-lock-server-config"))
        .contains("backend: " + variant.backend());
    boolean internalEtcd = variant == Variant.ETCD_INTERNAL || variant == Variant.MONITORING_ON;
    assertThat(docs.stream().anyMatch(d -> d.model() instanceof StatefulSet))
        .isEqualTo(internalEtcd);
  }

  @Test
  void internalEtcdIsThreeMembersOnDifferentNodesWithTlsOnBothPortsAndAClaimEach() {
    StatefulSet etcd =
        only(Manifests.read(HelmChart.render(Variant.ETCD_INTERNAL)), StatefulSet.class);

    assertThat(etcd.getSpec().getReplicas()).isEqualTo(3);
    assertThat(etcd.getSpec().getVolumeClaimTemplates()).hasSize(1);
    assertThat(
            etcd.getSpec()
                .getTemplate()
                .getSpec()
                .getAffinity()
                .getPodAntiAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution())
        .singleElement()
        .satisfies(term -> assertThat(term.getTopologyKey()).isEqualTo("kubernetes.io/hostname"));
    List<String> args = etcd.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
    assertThat(args)
        .contains("--client-cert-auth=true", "--peer-client-cert-auth=true")
        .contains(
            "--listen-client-urls=https://0.0.0.0:2379", "--listen-peer-urls=https://0.0.0.0:2380")
        .anyMatch(a -> a.startsWith("--trusted-ca-file="))
        .anyMatch(a -> a.startsWith("--peer-trusted-ca-file="));
  }

  @Test
  void externalEtcdIsReachedOnlyOverTlsWithTheClientCertificateAndTheUser() {
    String config =
        config(
            Manifests.read(HelmChart.render(Variant.ETCD_EXTERNAL)),
            "fencepost-lock-server-config");

    assertThat(config)
        .contains(
            "https://etcd-a.fencepost.internal:2379", "authority: \"etcd.fencepost.internal\"")
        .contains("ca-file: /etc/etcd-client/ca.crt", "user: \"fencepost-lock-server\"")
        .doesNotContain("http://");
  }

  @Test
  void theStubRunsOnlyInStagingAndThenIsTheProxysRail() {
    List<Doc> staging = Manifests.read(HelmChart.render(Variant.STAGING_WITH_STUB));
    List<Doc> production = Manifests.read(HelmChart.render(Variant.POSTGRES));

    assertThat(staging)
        .anyMatch(d -> d.model() instanceof Deployment && d.name().equals("fencepost-rail-stub"));
    assertThat(config(staging, "fencepost-rail-proxy-config"))
        .contains("base-url: \"https://fencepost-rail-stub.payouts.svc:8083\"");
    assertThat(production).noneMatch(d -> d.name().contains("rail-stub"));
    assertThat(config(production, "fencepost-rail-proxy-config")).doesNotContain("rail-stub");
  }

  @Test
  void monitoringObjectsRenderOnlyWhenAskedFor() {
    assertThat(Manifests.read(HelmChart.render(Variant.MONITORING_ON)))
        .extracting(Doc::kind)
        .contains("ServiceMonitor", "PodMonitor", "PrometheusRule");
    for (Variant variant : List.of(Variant.DEFAULTS, Variant.POSTGRES, Variant.STAGING_WITH_STUB)) {
      assertThat(Manifests.read(HelmChart.render(variant)))
          .extracting(Doc::kind)
          .doesNotContainAnyElementsOf(Manifests.MONITORING_KINDS);
    }
  }

  @Test
  void theAlertRulesWatchMetricsTheGuardsExport() {
    String rules = HelmChart.render(Variant.MONITORING_ON);

    // payment-resource's PaymentSignals and the proxy's SubmissionService/FencingSwitches.
    assertThat(rules).contains("fencepost_fence_rejections_total", "fencepost_fencing_enabled");
  }

  @Test
  void aFieldTheModelDoesNotKnowIsRefused() {
    String typo =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: typo}
        spec:
          replica: 2
          selector: {matchLabels: {a: b}}
          template:
            metadata: {labels: {a: b}}
            spec:
              containers:
                - name: c
                  image: i
                  securityContext: {readOnlyRootFs: true}
        """;

    assertThatThrownBy(() -> Manifests.read(typo))
        .hasMessageContaining("spec.replica")
        .hasMessageContaining("readOnlyRootFs");
  }

  @Test
  void aMonitoringFieldTheOperatorsApiDoesNotKnowIsRefused() {
    String typo =
        """
        apiVersion: monitoring.coreos.com/v1
        kind: ServiceMonitor
        metadata: {name: typo}
        spec:
          selector: {matchLabels: {a: b}}
          endpoints: [{port: management, intervall: 30s}]
        """;

    assertThatThrownBy(() -> Manifests.read(typo)).hasMessageContaining("intervall");
  }

  @Test
  void aKindWithoutAModelIsRefused() {
    assertThatThrownBy(
            () -> Manifests.read("apiVersion: example.dev/v1\nkind: Thing\nmetadata: {name: x}\n"))
        .hasMessageContaining("no Kubernetes API model");
  }

  static String config(List<Doc> docs, String name) {
    return docs.stream()
        .filter(d -> d.model() instanceof ConfigMap && d.name().equals(name))
        .map(d -> d.as(ConfigMap.class).getData().get("application.yaml"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no ConfigMap " + name));
  }

  static <T> T only(List<Doc> docs, Class<T> type) {
    List<T> found =
        docs.stream().filter(d -> type.isInstance(d.model())).map(d -> d.as(type)).toList();
    assertThat(found).hasSize(1);
    return found.get(0);
  }
}
