package dev.fencepost.deploy.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * values.schema.json refuses unknown keys and every value that would switch a guard off; Helm
 * itself applies it (install, upgrade, template, lint).
 */
class ValuesSchemaTest {

  private static final List<String> COMPONENTS_WITH_EXTRA_ENV =
      List.of("lockServer", "railProxy", "payoutJob", "reconciliation");

  private static void refused(Map<String, String> sets) {
    assertThatThrownBy(() -> HelmChart.render(Variant.DEFAULTS, sets))
        .as("%s", sets)
        .hasMessageContaining("values don't meet the specifications of the schema");
  }

  @ParameterizedTest
  @CsvSource({
    "railProxy.fencing.highWaterEnabled, false",
    "railProxy.fencing.uniquenessEnabled, false",
    "railProxy.fencing.experiment, true",
    "railProxy.highWaterEnabled, false",
    "payoutJob.resourceFence, off",
    "experiment.resourceFence, off",
    "lockServer.localDeadlineCheck, false",
    "payoutJob.lockClient.enabled, false",
    "payoutJob.lockClient.safetyMargin, 0.01",
    "databases.allowAsynchronousCommit, true",
    "databases.tls.mode, disable",
    "lockServer.env[0].name, FENCEPOST_PROXY_FENCING_EXPERIMENT",
    "railProxy.args[0], --fencepost.proxy.fencing.high-water-enabled=false",
    "payoutJob.extraArgs[0], --fencepost.experiment.resource-fence=off",
    "railProxy.envFrom[0].configMapRef.name, switches",
    "reconciliation.backfill.windowFrom, --fencepost.proxy.fencing.experiment=true",
  })
  void noValueCanSwitchAGuardOff(String key, String value) {
    refused(Map.of(key, value));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "FENCEPOST_PROXY_FENCING_HIGH_WATER_ENABLED",
        "FENCEPOST_PROXY_FENCING_HIGHWATERENABLED",
        "FENCEPOST_PROXY_FENCING_UNIQUENESSENABLED",
        "FENCEPOST_PROXY_FENCING_EXPERIMENT",
        "FENCEPOST_EXPERIMENT_RESOURCE_FENCE",
        "FENCEPOST_DB_ALLOW_ASYNCHRONOUS_COMMIT",
        "FENCEPOST_DB_TLS_MODE",
        "FENCEPOST_LOCK_CLIENT_ENABLED",
        "FENCEPOST_LOCK_CLIENT_SAFETY_MARGIN",
        "FENCEPOST_LOCK_CLIENT_SAFETYMARGIN",
        "FENCEPOST_LOCK_CLIENT_BASE_URL",
        "FENCEPOST_PAYOUT_LOOP_ENABLED",
        "FENCEPOST_LOCK_POSTGRES_TOKEN_FLOOR",
        "SPRING_APPLICATION_JSON",
        "SPRING_CONFIG_ADDITIONAL_LOCATION",
        "SPRING_PROFILES_ACTIVE",
        "JAVA_TOOL_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "fencepost.proxy.fencing.high-water-enabled",
        "FENCEPOST_PROXY_CURRENCY"
      })
  void noExtraEnvironmentVariableCanReachAGuard(String name) {
    String escaped = name.replace(".", "\\.");
    for (String component : COMPONENTS_WITH_EXTRA_ENV) {
      // A string, as every extraEnv value must be: the name alone has to be what is refused.
      refused(Map.of(component + ".extraEnv." + escaped, "off"));
    }
  }

  @Test
  void tuningThroughExtraEnvironmentStaysPossible() {
    String rendered =
        HelmChart.render(
            Variant.DEFAULTS,
            Map.of(
                "payoutJob.extraEnv.LOGGING_LEVEL_DEV_FENCEPOST", "DEBUG",
                "lockServer.extraEnv.FENCEPOST_DB_TIMEOUTS_STATEMENT_TIMEOUT", "4s"));

    assertThat(rendered)
        .contains("LOGGING_LEVEL_DEV_FENCEPOST", "FENCEPOST_DB_TIMEOUTS_STATEMENT_TIMEOUT");
  }

  @ParameterizedTest
  @CsvSource({
    "replicaCount, 3",
    "lockServer.replica, 3",
    "etcd.internal.storage.sizee, 20Gi",
    "databases.paydb.owner.password, secret",
    "monitoring.rules.extra, x",
    "staging.railStub.faults, on",
  })
  void anUnknownKeyIsRefused(String key, String value) {
    refused(Map.of(key, value));
  }

  @ParameterizedTest
  @CsvSource({
    "lockServer.replicas, 1",
    "railProxy.replicas, 1",
    "payoutJob.terminationGracePeriodSeconds, 30",
    "reconciliation.schedule, */5 * * * *",
    "lockServer.backend, memory",
    "etcd.external.endpoints[0], http://etcd:2379",
    "databases.paydb.url, jdbc:postgresql://paydb:5432/paydb?sslmode=disable",
    "lockServer.tokenFloor, -1",
  })
  void aValueOutsideItsBoundsIsRefused(String key, String value) {
    refused(Map.of(key, value));
  }

  @Test
  void theTemplatesRefuseStopBudgetsAndStartDeadlinesThatDoNotFit() {
    assertThatThrownBy(
            () ->
                HelmChart.render(
                    Variant.DEFAULTS,
                    Map.of(
                        "lockServer.terminationGracePeriodSeconds",
                        "35",
                        "lockServer.preStopSleepSeconds",
                        "10")))
        .hasMessageContaining("preStopSleepSeconds + 30");
    assertThatThrownBy(
            () ->
                HelmChart.render(Variant.DEFAULTS, Map.of("reconciliation.schedule", "55 * * * *")))
        .hasMessageContaining("reconciles the wrong hour");
  }

  @Test
  void theShippedValuesHoldNoSecret() throws Exception {
    Object values =
        YAMLMapper.builder()
            .build()
            .readValue(Files.readString(HelmChart.chartDir().resolve("values.yaml")), Object.class);

    assertThat(secretValues("", values)).isEmpty();
  }

  private static List<String> secretValues(String path, Object node) {
    List<String> found = new java.util.ArrayList<>();
    if (node instanceof Map<?, ?> map) {
      map.forEach(
          (k, v) -> {
            String name = path + "." + k;
            boolean secretish =
                String.valueOf(k).toLowerCase().matches(".*(password|secret|token|key).*");
            // A Secret's name (...Secret) or a key within one (...key) is a reference, not a
            // secret.
            boolean reference =
                name.endsWith("Secret") || name.endsWith("Key") || name.endsWith(".key");
            if (secretish && v != null && !(v instanceof Map) && !reference) {
              found.add(name);
            }
            found.addAll(secretValues(name, v));
          });
    }
    return found;
  }
}
