package dev.fencepost.deploy.helm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.deploy.helm.Manifests.Doc;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every property and environment variable the chart sets is one an application reads. The lists say
 * where each is defined; a new one in a template fails here until it is checked and added.
 */
class ChartPropertiesTest {

  /** Properties of the configuration files the chart writes (application.yaml per component). */
  static final Set<String> PROPERTIES =
      Set.of(
          // Spring Boot: TLS serving from the PEM bundle (ADR 0150), the resource server, the
          // datasource, Batch's start-up runner, the readiness group.
          "server.ssl.bundle",
          "management.server.ssl.bundle",
          "spring.ssl.bundle.pem.fencepost.reload-on-update",
          "spring.ssl.bundle.pem.fencepost.keystore.certificate",
          "spring.ssl.bundle.pem.fencepost.keystore.private-key",
          "spring.security.oauth2.resourceserver.jwt.jwk-set-uri",
          "spring.security.oauth2.resourceserver.jwt.issuer-uri",
          "spring.datasource.url",
          "spring.batch.job.enabled",
          "management.endpoint.health.group.readiness.include",
          // security-support FencepostSecurityProperties.
          "fencepost.security.audience",
          "fencepost.security.roles-claim",
          "fencepost.security.subject-roles",
          "fencepost.security.client.token-file",
          // db DatabaseTls.
          "fencepost.db.tls.mode",
          "fencepost.db.tls.root-cert",
          // lock-server-app LockServerProperties, GrantSigningProperties,
          // PostgresBackendProperties,
          // EtcdBackendProperties.
          "fencepost.lock.backend",
          "fencepost.lock.min-ttl",
          "fencepost.lock.grant-signing.jwk-set-file",
          "fencepost.lock.postgres.migrate",
          "fencepost.lock.postgres.token-floor",
          "fencepost.lock.etcd.endpoints",
          "fencepost.lock.etcd.user",
          "fencepost.lock.etcd.tls.ca-file",
          "fencepost.lock.etcd.tls.certificate-file",
          "fencepost.lock.etcd.tls.key-file",
          "fencepost.lock.etcd.tls.authority",
          "fencepost.lock.etcd.revision-floor",
          // rail-proxy-app RailProperties, GrantVerificationProperties.
          "fencepost.rail.base-url",
          "fencepost.proxy.grants.jwk-set-uri",
          // payment-resource PaydbProperties; lock-starter LockClientProperties.
          "fencepost.paydb.url",
          "fencepost.lock.client.base-url",
          // payout-job PayoutJobProperties.
          "fencepost.payout.concurrency",
          "fencepost.payout.loop.enabled",
          "fencepost.payout.proxy.base-url",
          // reconciliation-job ReconciliationProperties.
          "fencepost.reconciliation.migrate-paydb",
          "fencepost.reconciliation.proxy-base-url",
          "fencepost.reconciliation.rail-statement-url");

  /**
   * Environment variables: Boot's config location, the JVM's options, the runtime roles'
   * credentials the applications' yaml reads (ADR 0160), the etcd password (ADR 0158), the
   * migration step's owner password ({@code Migration.PASSWORD_ENVIRONMENT}), the etcd member's own
   * name, a backfill's switches to a one-off run (ADR 0060), and the tuning extraEnv allows.
   */
  static final Pattern ENVIRONMENT =
      Pattern.compile(
          "SPRING_CONFIG_ADDITIONAL_LOCATION|JAVA_TOOL_OPTIONS"
              + "|(LOCKDB|PROXYDB|PAYDB|BATCHDB)_(USERNAME|PASSWORD)"
              + "|FENCEPOST_LOCK_ETCD_PASSWORD|FENCEPOST_DB_PASSWORD|POD_NAME"
              + "|SPRING_BATCH_JOB_ENABLED|FENCEPOST_PAYOUT_LOOP_ENABLED|FENCEPOST_PAYOUT_EXIT_WHEN_DONE"
              + "|LOGGING_LEVEL_[A-Z0-9_]+|FENCEPOST_DB_TIMEOUTS_[A-Z_]+");

  @ParameterizedTest
  @EnumSource(Variant.class)
  void everyPropertyTheChartSetsIsOneAnApplicationReads(Variant variant) {
    List<Doc> docs = Manifests.read(HelmChart.render(variant));

    List<String> set =
        docs.stream()
            .filter(d -> d.model() instanceof ConfigMap)
            .flatMap(d -> d.as(ConfigMap.class).getData().values().stream())
            .flatMap(yaml -> Policies.flatten(yaml).stream())
            // A map's keys (subject-roles) and a list's items (endpoints) belong to their property.
            .map(name -> name.replaceAll("\\.\\[system:.*$", "").replaceAll("\\[\\d+]$", ""))
            .toList();

    assertThat(set).isNotEmpty().allSatisfy(p -> assertThat(PROPERTIES).contains(p));
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void everyEnvironmentVariableTheChartSetsIsOneSomethingReads(Variant variant) {
    List<String> names =
        Policies.pods(Manifests.read(HelmChart.render(variant))).stream()
            .flatMap(p -> p.spec().getContainers().stream())
            .map(Container::getEnv)
            .flatMap(List::stream)
            .map(EnvVar::getName)
            .toList();

    assertThat(names).isNotEmpty().allMatch(n -> ENVIRONMENT.matcher(n).matches(), "known");
  }
}
