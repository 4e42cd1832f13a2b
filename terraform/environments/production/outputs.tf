# What the Helm chart needs from here (terraform output -json chart_inputs). The mapping to the
# chart's values is a table in ../../README.md.

output "project_id" {
  description = "The project."
  value       = var.project_id
}

output "region" {
  description = "The region."
  value       = var.region
}

output "cluster_name" {
  description = "The GKE cluster (gcloud container clusters get-credentials CLUSTER --region REGION)."
  value       = module.gke.name
}

output "workload_pool" {
  description = "The Workload Identity pool, PROJECT.svc.id.goog."
  value       = module.gke.workload_pool
}

output "kubernetes_namespace" {
  description = "The namespace the chart must be installed in for the Workload Identity bindings to hold."
  value       = var.kubernetes_namespace
}

output "image_registry" {
  description = "REGION-docker.pkg.dev/PROJECT/fencepost: images are IMAGE_REGISTRY/<artifactId>:<version>."
  value       = module.registry.repository_url
}

output "service_account_emails" {
  description = "Kubernetes service account name => Google service account email, for the annotation iam.gke.io/gcp-service-account."
  value       = { for k, w in local.workloads : w.ksa => module.workload[k].email }
}

output "database_users" {
  description = "Kubernetes service account name => its PostgreSQL user (IAM database authentication, no password)."
  value       = { for k, w in local.workloads : w.ksa => module.workload[k].database_user }
}

output "workload_databases" {
  description = "Kubernetes service account name => the databases it connects to."
  value       = { for k, w in local.workloads : w.ksa => w.databases }
}

output "secret_ids" {
  description = "Kubernetes service account name => its secrets' ids (containers only; values are added out of band)."
  value       = { for k, w in local.workloads : w.ksa => module.workload[k].secret_ids }
}

output "cloud_sql_connection_name" {
  description = "PROJECT:REGION:INSTANCE for the Cloud SQL Java connector or the Auth Proxy."
  value       = module.cloud_sql.connection_name
}

output "cloud_sql_private_ip" {
  description = "The instance's private IP."
  value       = module.cloud_sql.private_ip_address
}

output "cloud_sql_dns_name" {
  description = "The name in the instance's server certificate, for a direct verify-full connection (ADR 0157)."
  value       = module.cloud_sql.dns_name
}

output "cloud_sql_server_ca_certs" {
  description = "The instance's server CA certificate(s), public, for FENCEPOST_DB_TLS_ROOTCERT."
  value       = module.cloud_sql.server_ca_certs
}

output "databases" {
  description = "The four stores' database names."
  value       = module.cloud_sql.databases
}

output "database_bootstrap_sql" {
  description = "The SQL a DBA runs once as the instance's postgres user after the first apply: owner and runtime roles per database, and which IAM user is a member of which (ADR 0160)."
  value = templatefile("${path.module}/bootstrap-roles.sql.tftpl", {
    databases = ["lockdb", "paydb", "proxydb", "batchdb"]
    members = [for k, w in local.workloads : {
      user      = module.workload[k].database_user
      databases = w.databases
      role      = w.db_role
    }]
  })
}

output "chart_inputs" {
  description = "Everything above that the chart takes, in one object (terraform output -json chart_inputs)."
  value = {
    namespace              = var.kubernetes_namespace
    imageRegistry          = module.registry.repository_url
    serviceAccounts        = { for k, w in local.workloads : w.ksa => module.workload[k].email }
    databaseUsers          = { for k, w in local.workloads : w.ksa => module.workload[k].database_user }
    cloudSqlConnectionName = module.cloud_sql.connection_name
    cloudSqlPrivateIp      = module.cloud_sql.private_ip_address
    cloudSqlDnsName        = module.cloud_sql.dns_name
    databases              = module.cloud_sql.databases
    secretIds              = { for k, w in local.workloads : w.ksa => module.workload[k].secret_ids }
  }
}
