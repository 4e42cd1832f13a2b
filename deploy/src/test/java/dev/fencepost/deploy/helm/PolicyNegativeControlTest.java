package dev.fencepost.deploy.helm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.deploy.helm.Manifests.Doc;
import dev.fencepost.deploy.helm.Policies.Pod;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Each rule of {@link Policies} fails on a rendering broken the way the rule forbids: the real
 * chart rendered, then one object changed in memory.
 */
class PolicyNegativeControlTest {

  private static List<Doc> broken(Consumer<List<Doc>> breakIt) {
    List<Doc> docs = new ArrayList<>(Manifests.read(HelmChart.render(Variant.STAGING_WITH_STUB)));
    assertThat(Policies.podHardening(docs)).as("the unbroken rendering keeps the rules").isEmpty();
    breakIt.accept(docs);
    return docs;
  }

  private static Container container(List<Doc> docs, String owner) {
    return Policies.pods(docs).stream()
        .filter(p -> p.owner().equals(owner))
        .map(Pod::spec)
        .findFirst()
        .orElseThrow()
        .getContainers()
        .get(0);
  }

  private static void fails(
      Function<List<Doc>, List<String>> rule, Consumer<List<Doc>> breakIt, String expected) {
    assertThat(rule.apply(broken(breakIt))).anyMatch(v -> v.contains(expected));
  }

  @Test
  void hardeningFailsWithoutResources() {
    fails(
        Policies::podHardening,
        d ->
            container(d, "Deployment/fencepost-lock-server")
                .setResources(new ResourceRequirements()),
        "no cpu and memory requests");
  }

  @Test
  void hardeningFailsWithAWritableRootFilesystem() {
    fails(
        Policies::podHardening,
        d ->
            container(d, "Deployment/fencepost-rail-proxy")
                .getSecurityContext()
                .setReadOnlyRootFilesystem(false),
        "root filesystem is writable");
  }

  @Test
  void hardeningFailsForRoot() {
    fails(
        Policies::podHardening,
        d -> container(d, "CronJob/fencepost-reconciliation").getSecurityContext().setRunAsUser(0L),
        "not 65532");
  }

  @Test
  void hardeningFailsWithoutProbesOnALongRunningContainer() {
    fails(
        Policies::podHardening,
        d -> container(d, "Deployment/fencepost-payout-job").setReadinessProbe(null),
        "without startup, liveness and readiness probes");
  }

  @Test
  void hardeningFailsWithoutTmp() {
    fails(
        Policies::podHardening,
        d ->
            container(d, "Deployment/fencepost-rail-stub")
                .getVolumeMounts()
                .removeIf(m -> m.getMountPath().equals("/tmp")),
        "no emptyDir at /tmp");
  }

  @Test
  void hardeningFailsWithAnAddedCapabilityOrPrivilegeEscalation() {
    fails(
        Policies::podHardening,
        d ->
            container(d, "Deployment/fencepost-lock-server")
                .getSecurityContext()
                .getCapabilities()
                .setAdd(List.of("NET_ADMIN")),
        "capabilities");
    fails(
        Policies::podHardening,
        d ->
            container(d, "Deployment/fencepost-lock-server")
                .getSecurityContext()
                .setAllowPrivilegeEscalation(true),
        "allowPrivilegeEscalation");
  }

  @Test
  void budgetsFailWhenADeploymentHasNone() {
    fails(
        Policies::disruptionBudgets,
        d ->
            d.removeIf(
                doc ->
                    doc.model() instanceof PodDisruptionBudget
                        && doc.name().equals("fencepost-rail-proxy")),
        "Deployment/fencepost-rail-proxy: no PodDisruptionBudget");
  }

  @Test
  void reconciliationFailsWhenNotForbiddingOverlapOrNotHourlyOrWithoutADeadline() {
    Function<List<Doc>, CronJob> cron =
        d ->
            d.stream()
                .filter(x -> x.model() instanceof CronJob)
                .findFirst()
                .orElseThrow()
                .as(CronJob.class);
    fails(
        Policies::hourlyReconciliation,
        d -> cron.apply(d).getSpec().setConcurrencyPolicy("Allow"),
        "concurrencyPolicy");
    fails(
        Policies::hourlyReconciliation,
        d -> cron.apply(d).getSpec().setSchedule("*/5 * * * *"),
        "not hourly");
    fails(
        Policies::hourlyReconciliation,
        d -> cron.apply(d).getSpec().setStartingDeadlineSeconds(null),
        "startingDeadlineSeconds");
    fails(
        Policies::hourlyReconciliation,
        d -> cron.apply(d).getSpec().setStartingDeadlineSeconds(3500L),
        "wrong one");
    fails(
        Policies::hourlyReconciliation,
        d -> cron.apply(d).getSpec().setFailedJobsHistoryLimit(null),
        "history");
  }

  @Test
  void theSwitchScanFindsAGuardInEveryPlaceASettingCanHide() {
    fails(
        Policies::fencingSwitches,
        d ->
            container(d, "Deployment/fencepost-rail-proxy")
                .getEnv()
                .add(new EnvVar("FENCEPOST_PROXY_FENCING_HIGHWATERENABLED", "false", null)),
        "fencepostproxyfencing");
    fails(
        Policies::fencingSwitches,
        d ->
            container(d, "Deployment/fencepost-rail-proxy")
                .getEnv()
                .add(new EnvVar("FENCEPOST_PROXY_FENCING_UNIQUENESS_ENABLED", "false", null)),
        "uniquenessenabled");
    fails(
        Policies::fencingSwitches,
        d ->
            container(d, "Deployment/fencepost-payout-job")
                .getEnv()
                .add(
                    new EnvVar(
                        "JAVA_TOOL_OPTIONS",
                        "-Dfencepost.db.allow-asynchronous-commit=true",
                        null)),
        "allowasynchronouscommit");
    fails(
        Policies::fencingSwitches,
        d ->
            container(d, "Deployment/fencepost-payout-job")
                .setArgs(List.of("--fencepost.experiment.resource-fence=off")),
        "fencepostexperiment");
    fails(
        Policies::fencingSwitches,
        d ->
            container(d, "Deployment/fencepost-payout-job")
                .getEnv()
                .add(new EnvVar("SPRING_APPLICATION_JSON", "{}", null)),
        "springapplicationjson");
    fails(
        Policies::fencingSwitches,
        d ->
            configMap(d, "fencepost-rail-proxy-config")
                .getData()
                .put(
                    "application.yaml",
                    "fencepost:\n  proxy:\n    fencing:\n      high-water-enabled: false\n      experiment: true\n"),
        "property fencepost.proxy.fencing.high-water-enabled");
    fails(
        Policies::fencingSwitches,
        d ->
            configMap(d, "fencepost-payout-job-config")
                .getData()
                .put(
                    "application.yaml",
                    "fencepost:\n  lock:\n    client:\n      safety-margin: 0.01\n"),
        "safetymargin");
  }

  @Test
  void secretsFailWhenAPasswordIsAValue() {
    fails(
        Policies::secretsByReference,
        d ->
            container(d, "Deployment/fencepost-rail-proxy")
                .getEnv()
                .add(new EnvVar("PROXYDB_PASSWORD", "hunter2", null)),
        "PROXYDB_PASSWORD");
  }

  private static ConfigMap configMap(List<Doc> docs, String name) {
    ConfigMap configMap =
        docs.stream()
            .filter(d -> d.name().equals(name) && d.model() instanceof ConfigMap)
            .findFirst()
            .orElseThrow()
            .as(ConfigMap.class);
    configMap.setData(new java.util.HashMap<>(Map.copyOf(configMap.getData())));
    return configMap;
  }
}
