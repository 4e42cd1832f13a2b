package dev.fencepost.deploy.terraform;

import dev.fencepost.deploy.terraform.TerraformTree.Module;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * What production needs from the Terraform, as explicit rules over the parsed tree. Each rule has a
 * stable id; {@link #check} runs every rule and returns the findings, so a test can assert that
 * breaking one setting is reported as exactly that rule (the negative controls).
 *
 * <p>Values are read as hcl4j gives them: literals as they are, {@code var.NAME} resolved to the
 * variable's default in the same module (what the module does unless told otherwise), other
 * references as their text. A rule that needs a literal refuses a reference it cannot resolve.
 */
final class TerraformChecker {

  static final String ENVIRONMENT = "environments/production";
  static final String GKE = "modules/gke-autopilot";
  static final String SQL = "modules/cloud-sql-postgres";
  static final String REGISTRY = "modules/artifact-registry";
  static final String WORKLOAD = "modules/workload-identity";
  static final String CHANNELS = "modules/monitoring-channels";
  static final String BUDGET = "modules/billing-budget";

  static final Set<String> STORES = Set.of("lockdb", "paydb", "proxydb", "batchdb");
  static final Set<String> WORKLOADS =
      Set.of("lock_server", "rail_proxy", "payout_job", "reconciliation_job", "migrations");

  /** The secrets the applications read at run time, by the workload that owns them. */
  static final Map<String, Set<String>> REQUIRED_SECRETS =
      Map.of(
          "lock_server",
          Set.of("grant-signing-key", "etcd-client-cert", "etcd-client-key", "etcd-password"),
          "rail_proxy",
          Set.of("rail-credentials"));

  private static final Pattern WORKLOAD_IDENTITY_MEMBER =
      Pattern.compile(
          "^serviceAccount:var\\.project_id\\.svc\\.id\\.goog\\[var\\.\\S+/var\\.\\S+]$");
  private static final Pattern BOUNDED_VERSION = Pattern.compile("(~>|<|^=?\\s*\\d)");

  record Finding(String rule, String where, String message) {
    @Override
    public String toString() {
      return rule + " (" + where + "): " + message;
    }
  }

  /** Every rule that ran, and what each found. */
  record Report(Set<String> rules, List<Finding> findings) {
    Set<String> failedRules() {
      Set<String> failed = new TreeSet<>();
      findings.forEach(f -> failed.add(f.rule()));
      return failed;
    }

    List<Finding> findings(String rulePrefix) {
      return findings.stream().filter(f -> f.rule().startsWith(rulePrefix)).toList();
    }

    Set<String> rules(String rulePrefix) {
      Set<String> matching = new TreeSet<>();
      rules.stream().filter(r -> r.startsWith(rulePrefix)).forEach(matching::add);
      return matching;
    }
  }

  private final TerraformTree tree;
  private final Set<String> rules = new LinkedHashSet<>();
  private final List<Finding> findings = new ArrayList<>();

  private TerraformChecker(TerraformTree tree) {
    this.tree = tree;
  }

  static Report check(TerraformTree tree) {
    TerraformChecker checker = new TerraformChecker(tree);
    checker.run();
    return new Report(Set.copyOf(checker.rules), List.copyOf(checker.findings));
  }

  private void run() {
    parsing();
    versions();
    documentation();
    gke();
    cloudSql();
    registry();
    workloads();
    secrets();
    channels();
    budget();
    chartOutputs();
  }

  /** The environment's outputs the Helm chart's values are filled from (terraform/README.md). */
  static final Set<String> CHART_OUTPUTS =
      Set.of(
          "image_registry",
          "kubernetes_namespace",
          "service_account_emails",
          "database_users",
          "cloud_sql_connection_name",
          "cloud_sql_private_ip",
          "databases",
          "secret_ids");

  private void chartOutputs() {
    rule("outputs.chart");
    Set<String> missing = new TreeSet<>(CHART_OUTPUTS);
    missing.removeAll(environment().outputs().keySet());
    if (!missing.isEmpty()) {
      fail("outputs.chart", ENVIRONMENT, "outputs the chart needs are missing: " + missing);
    }
  }

  // ---- rules ---------------------------------------------------------------------------------

  private void parsing() {
    rule("parse.every-file");
    tree.parseFailures()
        .forEach((file, e) -> fail("parse.every-file", file.toString(), "hcl4j: " + e));
  }

  private void versions() {
    rule("versions.required-version");
    rule("versions.google-pinned");
    rule("versions.state-backend");
    for (Module module : tree.modules().values()) {
      List<Map<String, Object>> blocks = module.terraformBlocks();
      boolean requiredVersion =
          blocks.stream()
              .map(b -> Hcl.text(b.get("required_version")))
              .anyMatch(v -> v != null && BOUNDED_VERSION.matcher(v).find());
      if (!requiredVersion) {
        fail("versions.required-version", module.dir(), "no bounded required_version");
      }
      boolean usesGoogle =
          module.resources().keySet().stream().anyMatch(t -> t.startsWith("google_"));
      if (usesGoogle) {
        Map<String, Object> google =
            blocks.stream()
                .map(b -> Hcl.map(Hcl.block(b, "required_providers").get("google")))
                .filter(m -> !m.isEmpty())
                .findFirst()
                .orElse(Map.of());
        String version = Hcl.text(google.get("version"));
        if (!"hashicorp/google".equals(google.get("source"))
            || version == null
            || !(version.contains("~>") || version.contains("<"))) {
          fail(
              "versions.google-pinned",
              module.dir(),
              "hashicorp/google must be required with an upper-bounded version, got " + google);
        }
      }
    }
    boolean gcsBackend =
        environment().terraformBlocks().stream()
            .anyMatch(b -> Hcl.block(b, "backend").containsKey("gcs"));
    if (!gcsBackend) {
      fail("versions.state-backend", ENVIRONMENT, "no backend \"gcs\" block");
    }
  }

  private void documentation() {
    rule("docs.variables");
    rule("docs.outputs");
    for (Module module : tree.modules().values()) {
      module
          .variables()
          .forEach(
              (name, body) -> {
                if (blank(body.get("description")) || !body.containsKey("type")) {
                  fail(
                      "docs.variables",
                      module.dir(),
                      "variable " + name + " needs description and type");
                }
              });
      module
          .outputs()
          .forEach(
              (name, body) -> {
                if (blank(body.get("description"))) {
                  fail("docs.outputs", module.dir(), "output " + name + " needs a description");
                }
              });
    }
  }

  private void gke() {
    Module gke = module(GKE);
    Map<String, Object> cluster = single(gke, "google_container_cluster", "gke.autopilot");
    rule("gke.autopilot");
    if (!Boolean.TRUE.equals(gke.resolve(cluster.get("enable_autopilot")))) {
      fail("gke.autopilot", GKE, "enable_autopilot must be true");
    }
    rule("gke.private-nodes");
    if (!Boolean.TRUE.equals(
        gke.resolve(Hcl.block(cluster, "private_cluster_config").get("enable_private_nodes")))) {
      fail("gke.private-nodes", GKE, "private_cluster_config.enable_private_nodes must be true");
    }
    rule("gke.control-plane-access");
    boolean privateEndpoint =
        Boolean.TRUE.equals(
            gke.resolve(
                Hcl.block(cluster, "private_cluster_config").get("enable_private_endpoint")));
    boolean authorizedNetworks = cluster.containsKey("master_authorized_networks_config");
    if (!privateEndpoint || !authorizedNetworks) {
      fail(
          "gke.control-plane-access",
          GKE,
          "the control plane must default to a private endpoint and have master_authorized_networks_config"
              + " (private endpoint: "
              + privateEndpoint
              + ", authorized networks: "
              + authorizedNetworks
              + ")");
    }
    rule("gke.workload-identity");
    String pool = Hcl.text(Hcl.block(cluster, "workload_identity_config").get("workload_pool"));
    if (!"var.project_id.svc.id.goog".equals(pool)) {
      fail("gke.workload-identity", GKE, "workload_pool must be PROJECT.svc.id.goog, got " + pool);
    }
    rule("gke.release-channel");
    Object channel = gke.resolve(Hcl.block(cluster, "release_channel").get("channel"));
    if (!in(channel, "REGULAR", "STABLE")) {
      fail(
          "gke.release-channel",
          GKE,
          "release_channel must default to REGULAR or STABLE, got " + channel);
    }
    rule("gke.vpc-native");
    Map<String, Object> ranges = Hcl.block(cluster, "ip_allocation_policy");
    if (!"VPC_NATIVE".equals(cluster.get("networking_mode"))
        || !ranges.containsKey("cluster_secondary_range_name")
        || !ranges.containsKey("services_secondary_range_name")) {
      fail(
          "gke.vpc-native",
          GKE,
          "networking_mode VPC_NATIVE with ip_allocation_policy naming the Pods' and Services' ranges");
    }
    rule("gke.deletion-protection");
    if (!Boolean.TRUE.equals(gke.resolve(cluster.get("deletion_protection")))) {
      fail("gke.deletion-protection", GKE, "deletion_protection must default to true");
    }
    rule("gke.node-identity");
    Object nodeAccount =
        Hcl.block(cluster, "cluster_autoscaling", "auto_provisioning_defaults")
            .get("service_account");
    if (nodeAccount == null || !String.valueOf(nodeAccount).startsWith("google_service_account.")) {
      fail(
          "gke.node-identity",
          GKE,
          "nodes must run as a service account of their own, not the default");
    }
  }

  private void cloudSql() {
    Module sql = module(SQL);
    Map<String, Object> instance = single(sql, "google_sql_database_instance", "sql.regional");
    Map<String, Object> settings = Hcl.block(instance, "settings");
    rule("sql.postgres");
    if (!String.valueOf(sql.resolve(instance.get("database_version"))).startsWith("POSTGRES_")) {
      fail("sql.postgres", SQL, "database_version must be POSTGRES_*");
    }
    rule("sql.regional");
    if (!"REGIONAL".equals(sql.resolve(settings.get("availability_type")))) {
      fail(
          "sql.regional",
          SQL,
          "availability_type must be REGIONAL, got " + settings.get("availability_type"));
    }
    rule("sql.pitr");
    Map<String, Object> backups = Hcl.block(settings, "backup_configuration");
    if (!Boolean.TRUE.equals(sql.resolve(backups.get("enabled")))
        || !Boolean.TRUE.equals(sql.resolve(backups.get("point_in_time_recovery_enabled")))) {
      fail("sql.pitr", SQL, "backups and point-in-time recovery must be enabled");
    }
    Map<String, Object> flags = new java.util.HashMap<>();
    Hcl.blocks(settings.get("database_flags"))
        .forEach(f -> flags.put(Hcl.text(f.get("name")), sql.resolve(f.get("value"))));
    rule("sql.synchronous-commit");
    if (!"on".equals(flags.get("synchronous_commit"))) {
      fail(
          "sql.synchronous-commit",
          SQL,
          "database flag synchronous_commit must be on, got " + flags.get("synchronous_commit"));
    }
    rule("sql.group-commit");
    Object commitDelay = flags.get("commit_delay");
    if (commitDelay == null
        || !String.valueOf(commitDelay).matches("[1-9][0-9]{0,4}|100000")
        || !String.valueOf(flags.get("commit_siblings")).matches("[0-9]{1,4}")) {
      fail(
          "sql.group-commit",
          SQL,
          "database flags commit_delay (1 to 100000 microseconds) and commit_siblings must be set"
              + " (ADR 0203), got "
              + commitDelay
              + " and "
              + flags.get("commit_siblings"));
    }
    rule("sql.iam-authentication");
    if (!"on".equals(flags.get("cloudsql.iam_authentication"))) {
      fail("sql.iam-authentication", SQL, "database flag cloudsql.iam_authentication must be on");
    }
    rule("sql.private-ip-only");
    Map<String, Object> ip = Hcl.block(settings, "ip_configuration");
    Object network = ip.get("private_network");
    if (!Boolean.FALSE.equals(sql.resolve(ip.get("ipv4_enabled"))) || network == null) {
      fail(
          "sql.private-ip-only",
          SQL,
          "ipv4_enabled must be false and private_network set, got " + ip);
    }
    rule("sql.encrypted-only");
    if (!in(
        sql.resolve(ip.get("ssl_mode")), "ENCRYPTED_ONLY", "TRUSTED_CLIENT_CERTIFICATE_REQUIRED")) {
      fail("sql.encrypted-only", SQL, "ssl_mode must refuse plaintext, got " + ip.get("ssl_mode"));
    }
    rule("sql.deletion-protection");
    if (!Boolean.TRUE.equals(sql.resolve(instance.get("deletion_protection")))
        || !Boolean.TRUE.equals(sql.resolve(settings.get("deletion_protection_enabled")))) {
      fail(
          "sql.deletion-protection",
          SQL,
          "deletion_protection and settings.deletion_protection_enabled must default to true");
    }
    rule("sql.databases");
    Set<String> names = new TreeSet<>();
    sql.resources("google_sql_database").values().forEach(d -> names.add(Hcl.text(d.get("name"))));
    if (!names.equals(new TreeSet<>(STORES))) {
      fail(
          "sql.databases",
          SQL,
          "one google_sql_database per store " + new TreeSet<>(STORES) + ", got " + names);
    }
    rule("sql.no-password-users");
    for (Module module : tree.modules().values()) {
      module
          .resources("google_sql_user")
          .forEach(
              (name, user) -> {
                if (!"CLOUD_IAM_SERVICE_ACCOUNT".equals(module.resolve(user.get("type")))
                    || user.containsKey("password")
                    || user.containsKey("password_wo")) {
                  fail(
                      "sql.no-password-users",
                      module.dir(),
                      "google_sql_user."
                          + name
                          + " must be an IAM service-account user without a password");
                }
              });
    }
  }

  private void registry() {
    Module registry = module(REGISTRY);
    Map<String, Object> repository =
        single(registry, "google_artifact_registry_repository", "registry.docker");
    rule("registry.docker");
    if (!"DOCKER".equals(registry.resolve(repository.get("format")))
        || !"fencepost".equals(registry.resolve(repository.get("repository_id")))) {
      fail(
          "registry.docker",
          REGISTRY,
          "a DOCKER repository named fencepost (images fencepost/<artifactId>), got "
              + repository.get("format")
              + " "
              + registry.resolve(repository.get("repository_id")));
    }
    Module env = environment();
    Map<String, Object> call = moduleCall(env, "../../modules/artifact-registry");
    if (call.containsKey("repository_id")
        && !"fencepost".equals(env.resolve(call.get("repository_id")))) {
      fail("registry.docker", ENVIRONMENT, "the environment must keep repository_id fencepost");
    }
    rule("registry.immutable-tags");
    if (!Boolean.TRUE.equals(
        registry.resolve(Hcl.block(repository, "docker_config").get("immutable_tags")))) {
      fail("registry.immutable-tags", REGISTRY, "docker_config.immutable_tags must be true");
    }
  }

  private void workloads() {
    Module env = environment();
    rule("wi.workloads");
    Map<String, Object> workloads = Hcl.map(env.locals().get("workloads"));
    if (!workloads.keySet().equals(WORKLOADS)) {
      fail(
          "wi.workloads",
          ENVIRONMENT,
          "local.workloads must be exactly "
              + new TreeSet<>(WORKLOADS)
              + ", got "
              + new TreeSet<>(workloads.keySet()));
    }
    Set<String> ksas = new TreeSet<>();
    Set<String> accounts = new TreeSet<>();
    workloads.forEach(
        (name, w) -> {
          Map<String, Object> workload = Hcl.map(w);
          if (blank(workload.get("ksa")) || blank(workload.get("account_id"))) {
            fail("wi.workloads", ENVIRONMENT, name + " needs ksa and account_id");
          }
          ksas.add(Hcl.text(workload.get("ksa")));
          accounts.add(Hcl.text(workload.get("account_id")));
          for (Object db : Hcl.list(workload.get("databases"))) {
            if (db == null || !STORES.contains(db)) {
              fail("wi.workloads", ENVIRONMENT, name + " names an unknown database " + db);
            }
          }
        });
    if (ksas.size() != workloads.size() || accounts.size() != workloads.size()) {
      fail(
          "wi.workloads",
          ENVIRONMENT,
          "every workload needs a Kubernetes and a Google service account of its own");
    }
    Map<String, Object> call = moduleCall(env, "../../modules/workload-identity");
    if (!Objects.equals(call.get("for_each"), env.locals().get("workloads"))
        || !"each.value.ksa".equals(Hcl.text(call.get("kubernetes_service_account")))
        || !"each.value.account_id".equals(Hcl.text(call.get("account_id")))) {
      fail(
          "wi.workloads",
          ENVIRONMENT,
          "module workload-identity must be called for_each local.workloads with each workload's ksa and account_id");
    }

    Module workload = module(WORKLOAD);
    rule("wi.binding");
    boolean bound =
        workload.resources("google_service_account_iam_member").values().stream()
            .anyMatch(
                b ->
                    "roles/iam.workloadIdentityUser".equals(b.get("role"))
                        && String.valueOf(b.get("service_account_id"))
                            .startsWith("google_service_account.this.")
                        && WORKLOAD_IDENTITY_MEMBER
                            .matcher(String.valueOf(b.get("member")))
                            .matches());
    if (workload.resources("google_service_account").get("this") == null || !bound) {
      fail(
          "wi.binding",
          WORKLOAD,
          "the workload's google_service_account.this needs roles/iam.workloadIdentityUser for"
              + " serviceAccount:PROJECT.svc.id.goog[NAMESPACE/KSA]");
    }
    rule("wi.cloudsql-roles");
    Set<String> roles = new TreeSet<>();
    workload
        .resources("google_project_iam_member")
        .values()
        .forEach(
            b -> {
              if ("google_service_account.this.member".equals(Hcl.text(b.get("member")))) {
                roles.add(Hcl.text(b.get("role")));
              }
            });
    // What kind of user it is, is sql.no-password-users' business.
    boolean iamUser = !workload.resources("google_sql_user").isEmpty();
    if (!roles.containsAll(Set.of("roles/cloudsql.client", "roles/cloudsql.instanceUser"))
        || !iamUser) {
      fail(
          "wi.cloudsql-roles",
          WORKLOAD,
          "each workload needs roles/cloudsql.client, roles/cloudsql.instanceUser and an IAM database user, got "
              + roles
              + (iamUser ? "" : " and no IAM user"));
    }
  }

  private void secrets() {
    rule("secrets.no-values");
    for (Module module : tree.modules().values()) {
      module
          .resources("google_secret_manager_secret_version")
          .forEach(
              (name, version) ->
                  fail(
                      "secrets.no-values",
                      module.dir(),
                      "google_secret_manager_secret_version."
                          + name
                          + " would put a secret's value into the configuration and the state"));
      module
          .resources()
          .forEach(
              (type, named) ->
                  named.forEach(
                      (name, body) ->
                          walk(
                              body,
                              key -> {
                                if (key.equals("secret_data") || key.equals("secret_data_wo")) {
                                  fail(
                                      "secrets.no-values",
                                      module.dir(),
                                      type + "." + name + " carries " + key);
                                }
                              })));
    }
    rule("secrets.own-only");
    for (Module module : tree.modules().values()) {
      module
          .resources()
          .forEach(
              (type, named) ->
                  named.forEach(
                      (name, body) -> {
                        boolean grantsAccess =
                            String.valueOf(body.get("role")).startsWith("roles/secretmanager.")
                                || type.startsWith("google_secret_manager_secret_iam");
                        if (!grantsAccess) {
                          return;
                        }
                        boolean own =
                            module.dir().equals(WORKLOAD)
                                && type.equals("google_secret_manager_secret_iam_member")
                                && "roles/secretmanager.secretAccessor".equals(body.get("role"))
                                && "google_service_account.this.member"
                                    .equals(Hcl.text(body.get("member")))
                                && String.valueOf(body.get("secret_id"))
                                    .startsWith("google_secret_manager_secret.this.");
                        if (!own) {
                          fail(
                              "secrets.own-only",
                              module.dir(),
                              type
                                  + "."
                                  + name
                                  + ": secret access only as the workload module's accessor of its own secrets");
                        }
                      }));
    }
    rule("secrets.containers");
    Module workload = module(WORKLOAD);
    if (workload.resources("google_secret_manager_secret").isEmpty()) {
      fail(
          "secrets.containers",
          WORKLOAD,
          "the workload module must create its secrets' containers");
    }
    Map<String, Object> workloads = Hcl.map(environment().locals().get("workloads"));
    REQUIRED_SECRETS.forEach(
        (owner, required) -> {
          Set<String> declared = Hcl.map(Hcl.map(workloads.get(owner)).get("secrets")).keySet();
          if (!declared.containsAll(required)) {
            fail(
                "secrets.containers",
                ENVIRONMENT,
                owner + " must declare its secrets " + required + ", got " + declared);
          }
        });
  }

  private void channels() {
    Module channels = module(CHANNELS);
    rule("monitoring.channels");
    Collection<Map<String, Object>> all =
        channels.resources("google_monitoring_notification_channel").values();
    // One channel per address: a for_each over the addresses (the pager's is a single one).
    boolean email =
        all.stream()
            .anyMatch(
                c ->
                    c.containsKey("for_each")
                        && "email".equals(c.get("type"))
                        && Hcl.map(c.get("labels")).containsKey("email_address"));
    boolean pagerVariable = channels.variables().containsKey("pager_email_address");
    boolean noSecretLabels = all.stream().noneMatch(c -> c.containsKey("sensitive_labels"));
    if (!email || !pagerVariable || !noSecretLabels) {
      fail(
          "monitoring.channels",
          CHANNELS,
          "email channels, a pager variable and no sensitive_labels (a pager key is a secret)");
    }
  }

  private void budget() {
    Module budget = module(BUDGET);
    Map<String, Object> b = single(budget, "google_billing_budget", "budget.exists");
    rule("budget.exists");
    if (b.isEmpty()
        || !Hcl.has(b, "amount", "specified_amount")
        || Hcl.list(Hcl.block(b, "budget_filter").get("projects")).isEmpty()
        || !Hcl.block(b, "all_updates_rule").containsKey("monitoring_notification_channels")) {
      fail(
          "budget.exists",
          BUDGET,
          "a google_billing_budget with an amount, filtered to the project, notifying the monitoring channels");
    }
    rule("budget.thresholds");
    if (b.isEmpty()) {
      return;
    }
    List<Double> thresholds =
        Hcl.blocks(b.get("threshold_rules")).stream()
            .map(r -> budget.resolve(r.get("threshold_percent")))
            .filter(Number.class::isInstance)
            .map(n -> ((Number) n).doubleValue())
            .toList();
    boolean early = thresholds.stream().anyMatch(t -> t > 0 && t < 1);
    boolean atBudget = thresholds.stream().anyMatch(t -> t >= 1);
    if (!early || !atBudget) {
      fail(
          "budget.thresholds",
          BUDGET,
          "threshold rules below 100 % and at 100 %, got " + thresholds);
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  private void rule(String id) {
    rules.add(id);
  }

  private void fail(String rule, String where, String message) {
    rules.add(rule);
    findings.add(new Finding(rule, where, message));
  }

  private Module environment() {
    return module(ENVIRONMENT);
  }

  private Module module(String dir) {
    return tree.module(dir).orElseGet(() -> new Module(dir));
  }

  /** The one resource of that type; a finding under {@code rule} if there is none or several. */
  private Map<String, Object> single(Module module, String type, String rule) {
    Map<String, Map<String, Object>> found = module.resources(type);
    if (found.size() != 1) {
      fail(rule, module.dir(), "expected one " + type + ", found " + found.keySet());
      return found.isEmpty() ? Map.of() : found.values().iterator().next();
    }
    return found.values().iterator().next();
  }

  private Map<String, Object> moduleCall(Module env, String source) {
    return env.moduleCalls().values().stream()
        .filter(c -> source.equals(c.get("source")))
        .findFirst()
        .orElse(Map.of());
  }

  private static boolean in(Object value, String... allowed) {
    return value != null && Set.of(allowed).contains(value);
  }

  private static boolean blank(Object value) {
    return value == null || String.valueOf(value).isBlank();
  }

  private static void walk(Object value, Consumer<String> keys) {
    if (value instanceof Map<?, ?> m) {
      m.forEach(
          (k, v) -> {
            keys.accept(String.valueOf(k));
            walk(v, keys);
          });
    } else if (value instanceof List<?> l) {
      l.forEach(e -> walk(e, keys));
    }
  }
}
