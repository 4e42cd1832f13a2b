package dev.fencepost.deploy.terraform;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.deploy.terraform.TerraformChecker.Report;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every {@code .tf} file parses and the resources and settings production needs are there, each
 * requirement as the checker's rules of one prefix. Each test also asserts that its rules ran, so a
 * rule that silently stopped being evaluated fails here rather than passing vacuously.
 */
class TerraformTreeTest {

  private static TerraformTree tree;
  private static Report report;

  @BeforeAll
  static void parseOnce() {
    tree = TerraformTree.load(TerraformFiles.root());
    report = TerraformChecker.check(tree);
  }

  @Test
  void everyTerraformFileParsesAndEveryModuleIsThere() {
    assertThat(tree.parseFailures()).isEmpty();
    assertThat(TerraformTree.tfFiles(tree.root())).hasSizeGreaterThanOrEqualTo(30);
    assertThat(tree.modules().keySet())
        .contains(
            TerraformChecker.ENVIRONMENT,
            "modules/network",
            TerraformChecker.GKE,
            TerraformChecker.SQL,
            TerraformChecker.REGISTRY,
            TerraformChecker.WORKLOAD,
            TerraformChecker.CHANNELS,
            TerraformChecker.BUDGET);
    assertThat(report.findings("parse.")).isEmpty();
  }

  @Test
  void terraformAndTheGoogleProviderArePinnedAndStateLivesInGcs() {
    assertThat(report.rules("versions."))
        .containsExactlyInAnyOrder(
            "versions.required-version", "versions.google-pinned", "versions.state-backend");
    assertThat(report.findings("versions.")).isEmpty();
  }

  @Test
  void everyVariableAndOutputIsDocumented() {
    assertThat(report.rules("docs.")).containsExactlyInAnyOrder("docs.variables", "docs.outputs");
    assertThat(report.findings("docs.")).isEmpty();
  }

  @Test
  void theClusterIsAutopilotWithPrivateNodesAPrivateControlPlaneVpcNativeAndAWorkloadPool() {
    assertThat(report.rules("gke."))
        .containsExactlyInAnyOrder(
            "gke.autopilot",
            "gke.private-nodes",
            "gke.control-plane-access",
            "gke.workload-identity",
            "gke.release-channel",
            "gke.vpc-native",
            "gke.deletion-protection",
            "gke.node-identity");
    assertThat(report.findings("gke.")).isEmpty();
  }

  @Test
  void cloudSqlIsRegionalWithPitrDurableCommitsIamAuthenticationNoPublicIpAndOneDatabasePerStore() {
    assertThat(report.rules("sql."))
        .containsExactlyInAnyOrder(
            "sql.postgres",
            "sql.regional",
            "sql.pitr",
            "sql.synchronous-commit",
            "sql.group-commit",
            "sql.iam-authentication",
            "sql.private-ip-only",
            "sql.encrypted-only",
            "sql.deletion-protection",
            "sql.databases",
            "sql.no-password-users");
    assertThat(report.findings("sql.")).isEmpty();
  }

  @Test
  void imagesGoToTheDockerRepositoryFencepostWithImmutableTags() {
    assertThat(report.rules("registry."))
        .containsExactlyInAnyOrder("registry.docker", "registry.immutable-tags");
    assertThat(report.findings("registry.")).isEmpty();
  }

  @Test
  void everyWorkloadHasItsServiceAccountWorkloadIdentityBindingAndCloudSqlRoles() {
    assertThat(report.rules("wi."))
        .containsExactlyInAnyOrder("wi.workloads", "wi.binding", "wi.cloudsql-roles");
    assertThat(report.findings("wi.")).isEmpty();
  }

  @Test
  void secretsAreContainersOnlyAndReadableByTheirOwnWorkloadAlone() {
    assertThat(report.rules("secrets."))
        .containsExactlyInAnyOrder("secrets.no-values", "secrets.own-only", "secrets.containers");
    assertThat(report.findings("secrets.")).isEmpty();
  }

  @Test
  void alertsHaveEmailChannelsAndAPagerWithoutASecretKey() {
    assertThat(report.rules("monitoring.")).containsExactly("monitoring.channels");
    assertThat(report.findings("monitoring.")).isEmpty();
  }

  @Test
  void aBudgetAlertsBeforeAndAtItsAmount() {
    assertThat(report.rules("budget."))
        .containsExactlyInAnyOrder("budget.exists", "budget.thresholds");
    assertThat(report.findings("budget.")).isEmpty();
  }

  @Test
  void theEnvironmentOutputsWhatTheChartNeeds() {
    assertThat(report.rules("outputs.")).containsExactly("outputs.chart");
    assertThat(report.findings("outputs.")).isEmpty();
  }

  @Test
  void theWholeTreePassesEveryRule() {
    assertThat(report.findings()).isEmpty();
  }
}
