package dev.fencepost.deploy.helm;

import static dev.fencepost.deploy.helm.ChartRenderTest.config;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.deploy.helm.Manifests.Doc;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The chart's rules, on every documented variant. PolicyNegativeControlTest breaks each. */
class ChartPolicyTest {

  private static List<Doc> docs(Variant variant) {
    return Manifests.read(HelmChart.render(variant));
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void everyContainerHasResourcesProbesAndARestrictedNonRootReadOnlyContext(Variant variant) {
    assertThat(Policies.podHardening(docs(variant))).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void everyDeploymentAndStatefulSetHasADisruptionBudget(Variant variant) {
    assertThat(Policies.disruptionBudgets(docs(variant))).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void reconciliationIsHourlyOneAtATimeWithAStartDeadlineAndHistoryLimits(Variant variant) {
    assertThat(Policies.hourlyReconciliation(docs(variant))).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void noRenderedManifestCarriesAFencingSwitch(Variant variant) {
    assertThat(Policies.fencingSwitches(docs(variant))).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void credentialsComeOnlyFromExistingSecrets(Variant variant) {
    assertThat(Policies.secretsByReference(docs(variant))).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void theLockServerRunsTwiceAndStopsOnlyAfterInFlightRequestsFinish(Variant variant) {
    Deployment lockServer = deployment(docs(variant), "fencepost-lock-server");
    Container container = lockServer.getSpec().getTemplate().getSpec().getContainers().get(0);
    long preStop = container.getLifecycle().getPreStop().getSleep().getSeconds();

    assertThat(lockServer.getSpec().getReplicas()).isGreaterThanOrEqualTo(2);
    assertThat(preStop).isPositive();
    // Spring's graceful shutdown (server.shutdown=graceful) waits up to its 30 s phase budget.
    assertThat(lockServer.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
        .isGreaterThan(preStop + 30);
    assertThat(container.getReadinessProbe().getHttpGet().getPath())
        .isEqualTo("/actuator/health/readiness");
  }

  @Test
  void onPostgresTheLockServersReadinessFollowsLockdb() {
    assertThat(Policies.properties(config(docs(Variant.POSTGRES), "fencepost-lock-server-config")))
        .containsEntry("management.endpoint.health.group.readiness.include", "readinessState,db")
        .containsEntry("spring.datasource.url", "jdbc:postgresql://lockdb.invalid:5432/lockdb");
  }

  @ParameterizedTest
  @EnumSource(
      value = Variant.class,
      names = {"ETCD_INTERNAL", "ETCD_EXTERNAL"})
  void onEtcdTheLockServersReadinessFollowsEtcd(Variant variant) {
    assertThat(Policies.properties(config(docs(variant), "fencepost-lock-server-config")))
        .containsEntry("management.endpoint.health.group.readiness.include", "readinessState,etcd")
        .doesNotContainKey("spring.datasource.url");
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void thePayoutJobLoopsAutoscalesAndOutlastsItsOwnStopBudget(Variant variant) {
    List<Doc> docs = docs(variant);
    Deployment payout = deployment(docs, "fencepost-payout-job");
    HorizontalPodAutoscaler hpa = ChartRenderTest.only(docs, HorizontalPodAutoscaler.class);

    assertThat(Policies.properties(config(docs, "fencepost-payout-job-config")))
        .containsEntry("fencepost.payout.loop.enabled", "true")
        .containsEntry("spring.batch.job.enabled", "false");
    assertThat(hpa.getSpec().getScaleTargetRef().getName()).isEqualTo("fencepost-payout-job");
    assertThat(payout.getSpec().getReplicas()).as("replicas belong to the autoscaler").isNull();
    // PayoutJobLoop.stop() waits 30 s for the run in progress; then the lock client closes its
    // session (releasing every held lock) within its read timeout.
    assertThat(payout.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
        .isGreaterThanOrEqualTo(45L);
  }

  @Test
  void workloadIdentityAnnotatesEachServiceAccountItIsGiven() {
    List<ServiceAccount> accounts =
        docs(Variant.POSTGRES).stream()
            .filter(d -> d.model() instanceof ServiceAccount)
            .map(d -> d.as(ServiceAccount.class))
            .toList();

    assertThat(accounts).allSatisfy(a -> assertThat(a.getAutomountServiceAccountToken()).isFalse());
    assertThat(accounts)
        .filteredOn(a -> a.getMetadata().getName().equals("fencepost-payout-job"))
        .singleElement()
        .satisfies(
            a ->
                assertThat(a.getMetadata().getAnnotations())
                    .containsEntry(
                        "iam.gke.io/gcp-service-account",
                        "fencepost-payout-job@fencepost-prod.iam.gserviceaccount.com"));
  }

  @Test
  void eachCallerIsMappedToItsRoleByItsServiceAccount() {
    String lockServer = config(docs(Variant.DEFAULTS), "fencepost-lock-server-config");

    assertThat(lockServer)
        .contains("\"[system:serviceaccount:payouts:fencepost-payout-job]\": PAYOUT_WORKER")
        .contains("\"[system:serviceaccount:payouts:fencepost-reconciliation]\": RECONCILER");
  }

  static Deployment deployment(List<Doc> docs, String name) {
    return docs.stream()
        .filter(d -> d.model() instanceof Deployment && d.name().equals(name))
        .map(d -> d.as(Deployment.class))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no Deployment " + name));
  }
}
