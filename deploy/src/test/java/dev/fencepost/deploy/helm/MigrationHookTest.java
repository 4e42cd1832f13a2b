package dev.fencepost.deploy.helm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.deploy.helm.Manifests.Doc;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The migration step runs before install and upgrade, as each database's owner (ADR 0160). */
class MigrationHookTest {

  private static List<Job> migrations(Variant variant) {
    return Manifests.read(HelmChart.render(variant)).stream()
        .filter(d -> d.model() instanceof Job && d.name().startsWith("fencepost-migrations-"))
        .map(d -> d.as(Job.class))
        .toList();
  }

  @ParameterizedTest
  @EnumSource(Variant.class)
  void eachDatabaseIsMigratedByAPreInstallPreUpgradeHookAsItsOwner(Variant variant) {
    List<Job> jobs = migrations(variant);
    List<String> databases =
        "postgres".equals(variant.backend())
            ? List.of("lockdb", "paydb", "proxydb", "batchdb")
            : List.of("paydb", "proxydb", "batchdb");

    assertThat(jobs)
        .extracting(j -> j.getMetadata().getName().substring("fencepost-migrations-".length()))
        .containsExactlyInAnyOrderElementsOf(databases);
    for (Job job : jobs) {
      String database = job.getMetadata().getName().substring("fencepost-migrations-".length());
      Container migrate = job.getSpec().getTemplate().getSpec().getContainers().get(0);
      EnvVar password =
          migrate.getEnv().stream()
              .filter(e -> e.getName().equals("FENCEPOST_DB_PASSWORD"))
              .findFirst()
              .orElseThrow();

      assertThat(job.getMetadata().getAnnotations())
          .containsEntry(HelmChart.TEST_HOOK, "pre-install,pre-upgrade");
      assertThat(migrate.getImage()).endsWith("/fencepost/db:0.1.0");
      assertThat(migrate.getArgs())
          .startsWith(database)
          .contains("--username=" + database + "_owner", "--runtime-role=" + database + "_app")
          .anyMatch(
              a -> a.startsWith("--url=jdbc:postgresql://") && a.contains("sslmode=verify-full"))
          .noneMatch(a -> a.contains("password"));
      assertThat(password.getValueFrom().getSecretKeyRef().getName())
          .isEqualTo("fencepost-" + database + "-owner");
    }
  }

  @Test
  void theChartItselfDeclaresTheHook() throws Exception {
    String template = Files.readString(HelmChart.chartDir().resolve("templates/migrations.yaml"));

    assertThat(template).contains(HelmChart.HOOK + ": pre-install,pre-upgrade");
  }

  @Test
  void applicationsConnectAsTheRuntimeRoleNotTheOwner() {
    List<Doc> docs = Manifests.read(HelmChart.render(Variant.POSTGRES));

    assertThat(Policies.pods(docs))
        .filteredOn(p -> !p.owner().startsWith("Job/fencepost-migrations-"))
        .flatExtracting(p -> p.spec().getContainers().get(0).getEnv())
        .filteredOn(e -> e.getName().endsWith("DB_USERNAME"))
        .isNotEmpty()
        .allSatisfy(e -> assertThat(e.getValue()).endsWith("_app"));
    assertThat(Policies.pods(docs))
        .filteredOn(p -> !p.owner().startsWith("Job/fencepost-migrations-"))
        .allSatisfy(
            p ->
                assertThat(p.spec().getContainers().get(0).getEnv())
                    .noneMatch(
                        e ->
                            e.getValueFrom() != null
                                && e.getValueFrom().getSecretKeyRef() != null
                                && e.getValueFrom()
                                    .getSecretKeyRef()
                                    .getName()
                                    .endsWith("-owner")));
  }
}
