package dev.fencepost.deploy.terraform;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.deploy.terraform.TerraformChecker.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The checker's negative controls: the tree copied, one setting broken, and the checker must report
 * exactly the rule that protects it, no other. Each mutation first asserts that it changed the text
 * as many times as it expects, so a mutation that no longer matches the Terraform fails rather than
 * passing on an unbroken tree.
 */
class TerraformNegativeControlTest {

  record Mutation(String file, String regex, String replacement, int occurrences) {
    static Mutation of(String file, String regex, String replacement) {
      return new Mutation(file, regex, replacement, 1);
    }

    static Mutation append(String file, String text) {
      return new Mutation(file, "\\z", text, 1);
    }
  }

  static Stream<Arguments> mutations() {
    String sql = "modules/cloud-sql-postgres/main.tf";
    String gke = "modules/gke-autopilot/main.tf";
    String workload = "modules/workload-identity/main.tf";
    String env = "environments/production/main.tf";
    return Stream.of(
        Arguments.of(
            "synchronous_commit off",
            Mutation.of(sql, "(name  = \"synchronous_commit\"\\s+value = )\"on\"", "$1\"off\""),
            "sql.synchronous-commit"),
        Arguments.of(
            "synchronous_commit flag removed",
            Mutation.of(sql, "\\s+database_flags \\{\\s+name  = \"synchronous_commit\"[^}]*}", ""),
            "sql.synchronous-commit"),
        Arguments.of(
            "group commit off",
            Mutation.of(sql, "(name  = \"commit_delay\"\\s+value = )\"1000\"", "$1\"0\""),
            "sql.group-commit"),
        Arguments.of(
            "commit_delay flag removed",
            Mutation.of(sql, "\\s+database_flags \\{\\s+name  = \"commit_delay\"[^}]*}", ""),
            "sql.group-commit"),
        Arguments.of(
            "IAM database authentication off",
            Mutation.of(
                sql, "(name  = \"cloudsql.iam_authentication\"\\s+value = )\"on\"", "$1\"off\""),
            "sql.iam-authentication"),
        Arguments.of(
            "public IP on",
            Mutation.of(sql, "ipv4_enabled    = false", "ipv4_enabled    = true"),
            "sql.private-ip-only"),
        Arguments.of(
            "no private network",
            Mutation.of(sql, "\\s+private_network = var.network_id", ""),
            "sql.private-ip-only"),
        Arguments.of(
            "availability ZONAL",
            Mutation.of(
                sql,
                "availability_type           = \"REGIONAL\"",
                "availability_type           = \"ZONAL\""),
            "sql.regional"),
        Arguments.of(
            "point-in-time recovery off",
            Mutation.of(
                sql,
                "point_in_time_recovery_enabled = true",
                "point_in_time_recovery_enabled = false"),
            "sql.pitr"),
        Arguments.of(
            "plaintext allowed",
            Mutation.of(
                sql,
                "ssl_mode        = \"ENCRYPTED_ONLY\"",
                "ssl_mode        = \"ALLOW_UNENCRYPTED_AND_ENCRYPTED\""),
            "sql.encrypted-only"),
        Arguments.of(
            "API deletion protection off",
            Mutation.of(
                sql,
                "deletion_protection_enabled = var.deletion_protection",
                "deletion_protection_enabled = false"),
            "sql.deletion-protection"),
        Arguments.of(
            "database batchdb missing",
            Mutation.of(sql, "resource \"google_sql_database\" \"batchdb\" \\{[^}]*}", ""),
            "sql.databases"),
        Arguments.of(
            "a password user",
            Mutation.of(
                workload, "type     = \"CLOUD_IAM_SERVICE_ACCOUNT\"", "type     = \"BUILT_IN\""),
            "sql.no-password-users"),
        Arguments.of(
            "a standard cluster",
            Mutation.of(gke, "enable_autopilot    = true", "enable_autopilot    = false"),
            "gke.autopilot"),
        Arguments.of(
            "public nodes",
            Mutation.of(gke, "enable_private_nodes    = true", "enable_private_nodes    = false"),
            "gke.private-nodes"),
        Arguments.of(
            "no authorized networks",
            Mutation.of(
                gke,
                "\\s+master_authorized_networks_config \\{\\s+dynamic \"cidr_blocks\" \\{[^}]*}\\s*}\\s*}",
                ""),
            "gke.control-plane-access"),
        Arguments.of(
            "public endpoint by default",
            Mutation.of(
                "modules/gke-autopilot/variables.tf",
                "(variable \"enable_private_endpoint\" \\{[^}]*default     = )true",
                "$1false"),
            "gke.control-plane-access"),
        Arguments.of(
            "no workload pool",
            Mutation.of(gke, "\\n  workload_identity_config \\{.*?\\n  }", ""),
            "gke.workload-identity"),
        Arguments.of(
            "no release channel",
            Mutation.of(gke, "\\s+release_channel \\{[^}]*}", ""),
            "gke.release-channel"),
        Arguments.of(
            "routes-based networking",
            Mutation.of(gke, "networking_mode = \"VPC_NATIVE\"", "networking_mode = \"ROUTES\""),
            "gke.vpc-native"),
        Arguments.of(
            "nodes as the default service account",
            Mutation.of(
                gke,
                "\\s+cluster_autoscaling \\{\\s+auto_provisioning_defaults \\{[^}]*}\\s*}",
                ""),
            "gke.node-identity"),
        Arguments.of(
            "a Maven repository",
            Mutation.of(
                "modules/artifact-registry/main.tf",
                "format        = \"DOCKER\"",
                "format        = \"MAVEN\""),
            "registry.docker"),
        Arguments.of(
            "mutable tags",
            Mutation.of(
                "modules/artifact-registry/main.tf",
                "immutable_tags = true",
                "immutable_tags = false"),
            "registry.immutable-tags"),
        Arguments.of(
            "reconciliation job missing",
            Mutation.of(env, "\\s+reconciliation_job = \\{[^}]*secrets      = \\{}\\s*}", ""),
            "wi.workloads"),
        Arguments.of(
            "two workloads sharing a Kubernetes service account",
            Mutation.of(
                env, "ksa          = \"payout-job\"", "ksa          = \"reconciliation-job\""),
            "wi.workloads"),
        Arguments.of(
            "no Workload Identity binding",
            Mutation.of(workload, "roles/iam.workloadIdentityUser", "roles/iam.serviceAccountUser"),
            "wi.binding"),
        Arguments.of(
            "a binding for every namespace's service accounts",
            Mutation.of(
                workload,
                "\\[\\$\\{var.kubernetes_namespace}/\\$\\{var.kubernetes_service_account}]",
                "[*/*]"),
            "wi.binding"),
        Arguments.of(
            "no Cloud SQL client role",
            Mutation.of(
                workload,
                "resource \"google_project_iam_member\" \"cloudsql_client\" \\{.*?\\n}\\n",
                ""),
            "wi.cloudsql-roles"),
        Arguments.of(
            "a secret's value in a version",
            Mutation.append(
                workload,
                "\nresource \"google_secret_manager_secret_version\" \"leak\" {\n"
                    + "  secret      = google_secret_manager_secret.this[\"etcd-password\"].id\n"
                    + "  secret_data = \"hunter2\"\n}\n"),
            "secrets.no-values"),
        Arguments.of(
            "secret access for the whole project",
            Mutation.append(
                env,
                "\nresource \"google_project_iam_member\" \"all_secrets\" {\n"
                    + "  project = var.project_id\n"
                    + "  role    = \"roles/secretmanager.secretAccessor\"\n"
                    + "  member  = \"serviceAccount:fp-payout-job@x.iam.gserviceaccount.com\"\n}\n"),
            "secrets.own-only"),
        Arguments.of(
            "a secret readable by someone else",
            Mutation.of(
                workload,
                "(secretAccessor\"\\s+member    = )google_service_account.this.member",
                "$1\"group:everyone@example.com\""),
            "secrets.own-only"),
        Arguments.of(
            "the grant signing key's container missing",
            Mutation.of(env, "\\s+\"grant-signing-key\" = \"[^\"]*\"", ""),
            "secrets.containers"),
        Arguments.of(
            "no email channel",
            Mutation.of(
                "modules/monitoring-channels/main.tf",
                "resource \"google_monitoring_notification_channel\" \"email\" \\{.*?\\n}\\n",
                ""),
            "monitoring.channels"),
        Arguments.of(
            "no thresholds",
            new Mutation("modules/billing-budget/main.tf", "\\s+threshold_rules \\{[^}]*}", "", 4),
            "budget.thresholds"),
        Arguments.of(
            "only the 100 % thresholds",
            new Mutation(
                "modules/billing-budget/main.tf",
                "threshold_percent = 0\\.[59]",
                "threshold_percent = 1.0",
                2),
            "budget.thresholds"),
        Arguments.of(
            "no budget",
            Mutation.of(
                "modules/billing-budget/main.tf",
                "resource \"google_billing_budget\" \"this\" \\{.*\\n}\\n",
                ""),
            "budget.exists"),
        Arguments.of(
            "the google provider unbounded",
            Mutation.of(
                "environments/production/versions.tf",
                "version = \"~> 6.20\"",
                "version = \">= 6.20\""),
            "versions.google-pinned"),
        Arguments.of(
            "no required_version",
            Mutation.of("modules/network/versions.tf", "\\s+required_version = \"[^\"]*\"", ""),
            "versions.required-version"),
        Arguments.of(
            "local state",
            Mutation.of("environments/production/versions.tf", "\\s+backend \"gcs\" \\{}", ""),
            "versions.state-backend"),
        Arguments.of(
            "an undocumented variable",
            Mutation.of(
                "modules/cloud-sql-postgres/variables.tf",
                "\\s+description = \"Machine tier[^\"]*\"",
                ""),
            "docs.variables"),
        Arguments.of(
            "the chart's registry output missing",
            Mutation.of(
                "environments/production/outputs.tf", "output \"image_registry\" \\{[^}]*}", ""),
            "outputs.chart"),
        Arguments.of(
            "an unparseable file",
            Mutation.append(
                "modules/network/main.tf",
                "\nresource \"google_compute_network\" \"broken\" {\n  name = = \"x\"\n}\n"),
            "parse.every-file"));
  }

  @ParameterizedTest(name = "{0} is reported as {2}")
  @MethodSource("mutations")
  void breakingOneSettingIsReportedAsExactlyItsRule(
      String what, Mutation mutation, String rule, @TempDir Path temp) throws Exception {
    Path copy = TerraformFiles.copy(TerraformFiles.root(), temp.resolve("terraform"));
    Path file = copy.resolve(mutation.file());
    String text = Files.readString(file);
    Matcher matcher = Pattern.compile(mutation.regex(), Pattern.DOTALL).matcher(text);
    assertThat(matcher.results().count())
        .as("occurrences of %s in %s", mutation.regex(), mutation.file())
        .isEqualTo(mutation.occurrences());
    Files.writeString(file, matcher.replaceAll(mutation.replacement()));

    Report report = TerraformChecker.check(TerraformTree.load(copy));

    assertThat(report.failedRules()).as("findings: %s", report.findings()).containsExactly(rule);
  }
}
