package dev.fencepost.deploy.helm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.deploy.helm.Manifests.Doc;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Default deny; only the paths the platform uses (docs/deploy.md, "Network"). */
class NetworkPolicyTest {

  private static Map<String, NetworkPolicy> policies(Variant variant) {
    return Manifests.read(HelmChart.render(variant)).stream()
        .filter(d -> d.model() instanceof NetworkPolicy)
        .collect(java.util.stream.Collectors.toMap(Doc::name, d -> d.as(NetworkPolicy.class)));
  }

  /** The components a peer's pod selector names (empty for an ipBlock or a namespace). */
  private static List<String> components(NetworkPolicyPeer peer) {
    LabelSelector selector = peer.getPodSelector();
    if (selector == null || selector.getMatchExpressions() == null) {
      return List.of();
    }
    return selector.getMatchExpressions().stream()
        .filter(e -> e.getKey().equals("app.kubernetes.io/component"))
        .flatMap(e -> e.getValues().stream())
        .toList();
  }

  private static Stream<NetworkPolicyPeer> ingressPeers(NetworkPolicy policy) {
    return policy.getSpec().getIngress() == null
        ? Stream.empty()
        : policy.getSpec().getIngress().stream().flatMap(r -> r.getFrom().stream());
  }

  private static Stream<NetworkPolicyPeer> egressPeers(NetworkPolicy policy) {
    return policy.getSpec().getEgress() == null
        ? Stream.empty()
        : policy.getSpec().getEgress().stream().flatMap(r -> r.getTo().stream());
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void everyPodOfTheReleaseIsDeniedByDefaultAndMayResolveNames(Variant variant) {
    Map<String, NetworkPolicy> policies = policies(variant);
    NetworkPolicy deny = policies.get("fencepost-default-deny");
    NetworkPolicy dns = policies.get("fencepost-allow-dns");

    assertThat(deny.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
    assertThat(deny.getSpec().getIngress()).isNullOrEmpty();
    assertThat(deny.getSpec().getEgress()).isNullOrEmpty();
    assertThat(deny.getSpec().getPodSelector().getMatchLabels())
        .containsOnly(
            Map.entry("app.kubernetes.io/name", "fencepost"),
            Map.entry("app.kubernetes.io/instance", "fencepost"));
    assertThat(dns.getSpec().getEgress())
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.getPorts()).extracting(p -> p.getPort().getIntVal()).containsOnly(53));
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void onlyTheJobsReachTheProxyAndOnlyTheJobsAndTheProxyReachTheLockServer(Variant variant) {
    Map<String, NetworkPolicy> policies = policies(variant);

    assertThat(
            ingressPeers(policies.get("fencepost-rail-proxy")).flatMap(p -> components(p).stream()))
        .containsExactlyInAnyOrder("payout-job", "payout-job-backfill", "reconciliation");
    // The proxy fetches the lock server's published grant keys (ADR 0137), nothing else.
    assertThat(
            ingressPeers(policies.get("fencepost-lock-server"))
                .flatMap(p -> components(p).stream()))
        .containsExactlyInAnyOrder(
            "payout-job", "payout-job-backfill", "reconciliation", "rail-proxy");
    assertThat(ingressPeers(policies.get("fencepost-lock-server")))
        .allSatisfy(p -> assertThat(p.getIpBlock()).isNull());
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void onlyTheProxyReachesTheRail(Variant variant) {
    Map<String, NetworkPolicy> policies = policies(variant);
    boolean stub = variant == Variant.STAGING_WITH_STUB;
    String railCidr = "203.0.113.0/28";

    assertThat(policies.values())
        .filteredOn(
            p ->
                egressPeers(p)
                    .anyMatch(
                        peer ->
                            peer.getIpBlock() != null
                                && peer.getIpBlock().getCidr().equals(railCidr)))
        .extracting(p -> p.getMetadata().getName())
        .containsExactlyElementsOf(stub ? List.of() : List.of("fencepost-rail-proxy"));
    if (stub) {
      assertThat(
              ingressPeers(policies.get("fencepost-rail-stub"))
                  .flatMap(p -> components(p).stream()))
          .containsExactlyInAnyOrder("rail-proxy", "reconciliation");
    }
    assertThat(policies.values())
        .filteredOn(p -> egressPeers(p).anyMatch(peer -> components(peer).contains("rail-stub")))
        .extracting(p -> p.getMetadata().getName())
        .allMatch(
            name -> name.equals("fencepost-rail-proxy") || name.equals("fencepost-reconciliation"));
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void theBackendIsReachedOnlyByTheLockServer(Variant variant) {
    Map<String, NetworkPolicy> policies = policies(variant);

    assertThat(policies.values())
        .filteredOn(p -> egressPeers(p).anyMatch(peer -> components(peer).contains("etcd")))
        .extracting(p -> p.getMetadata().getName())
        .allMatch(name -> name.equals("fencepost-lock-server") || name.equals("fencepost-etcd"));
    if (policies.containsKey("fencepost-etcd")) {
      assertThat(ingressPeers(policies.get("fencepost-etcd")).flatMap(p -> components(p).stream()))
          .containsOnly("lock-server", "etcd");
    }
    assertThat(
            policies.values().stream()
                .flatMap(NetworkPolicyTest::egressPeers)
                .map(NetworkPolicyPeer::getIpBlock)
                .filter(Objects::nonNull))
        .allSatisfy(block -> assertThat(block.getCidr()).isNotEqualTo("0.0.0.0/0"));
  }
}
