# Fencepost on Google Cloud: network, GKE Autopilot, Cloud SQL for PostgreSQL with the four
# stores, Artifact Registry, one Google service account per workload bound to its Kubernetes
# service account, their secrets' containers, alert channels and a budget. Apply order and what
# is not managed here: ../../README.md and docs/decisions/0174-terraform-on-google-cloud.md.

data "google_project" "this" {
  project_id = var.project_id
}

locals {
  # The APIs this configuration uses. Service Usage and Cloud Resource Manager must be on before
  # the first plan (gcloud services enable serviceusage.googleapis.com cloudresourcemanager.googleapis.com).
  required_apis = [
    "artifactregistry.googleapis.com",
    "billingbudgets.googleapis.com",
    "compute.googleapis.com",
    "container.googleapis.com",
    "iam.googleapis.com",
    "monitoring.googleapis.com",
    "secretmanager.googleapis.com",
    "servicenetworking.googleapis.com",
    "sqladmin.googleapis.com",
  ]

  # Every workload: its Google service account, the Kubernetes service account that acts as it,
  # the databases it connects to and as which role (ADR 0160), and its own secrets (containers
  # only; values out of band). The chart's serviceAccountName for each must be ksa.
  workloads = {
    lock_server = {
      account_id   = "fp-lock-server"
      display_name = "Fencepost lock server"
      ksa          = "lock-server"
      databases    = ["lockdb"]
      db_role      = "runtime"
      secrets = {
        "grant-signing-key" = "ES256 private key(s) of the signed grants (ADR 0135, 0136)"
        "etcd-client-cert"  = "PEM client certificate chain for etcd (ADR 0158)"
        "etcd-client-key"   = "PKCS#8 PEM private key of the etcd client certificate"
        "etcd-password"     = "Password of the etcd user fencepost-lock-server"
      }
    }
    rail_proxy = {
      account_id   = "fp-rail-proxy"
      display_name = "Fencepost rail proxy"
      ksa          = "rail-proxy"
      databases    = ["proxydb"]
      db_role      = "runtime"
      secrets = {
        "rail-credentials" = "The rail's client credentials for RAIL_PROXY (ADR 0145)"
      }
    }
    payout_job = {
      account_id   = "fp-payout-job"
      display_name = "Fencepost payout job"
      ksa          = "payout-job"
      databases    = ["paydb", "batchdb"]
      db_role      = "runtime"
      secrets      = {}
    }
    reconciliation_job = {
      account_id   = "fp-reconciliation-job"
      display_name = "Fencepost reconciliation job"
      ksa          = "reconciliation-job"
      databases    = ["paydb", "batchdb"]
      db_role      = "runtime"
      secrets      = {}
    }
    migrations = {
      account_id   = "fp-migrations"
      display_name = "Fencepost migrations (schema owner)"
      ksa          = "migrations"
      databases    = ["lockdb", "paydb", "proxydb", "batchdb"]
      db_role      = "owner"
      secrets      = {}
    }
  }
}

resource "google_project_service" "required" {
  for_each = toset(local.required_apis)

  project = var.project_id
  service = each.key

  # Turning an API off on destroy would break whatever else in the project uses it.
  disable_on_destroy = false
}

module "network" {
  source = "../../modules/network"

  project_id    = var.project_id
  region        = var.region
  name          = "${var.name_prefix}-vpc"
  nodes_cidr    = var.nodes_cidr
  pods_cidr     = var.pods_cidr
  services_cidr = var.services_cidr

  depends_on = [google_project_service.required]
}

module "gke" {
  source = "../../modules/gke-autopilot"

  project_id                 = var.project_id
  region                     = var.region
  name                       = var.name_prefix
  network_self_link          = module.network.network_self_link
  subnetwork_self_link       = module.network.subnetwork_self_link
  pods_range_name            = module.network.pods_range_name
  services_range_name        = module.network.services_range_name
  master_ipv4_cidr_block     = var.master_ipv4_cidr_block
  enable_private_endpoint    = var.enable_private_endpoint
  master_authorized_networks = var.master_authorized_networks
  release_channel            = var.release_channel
  deletion_protection        = var.deletion_protection
}

module "cloud_sql" {
  source = "../../modules/cloud-sql-postgres"

  project_id          = var.project_id
  region              = var.region
  name                = "${var.name_prefix}-pg"
  tier                = var.database_tier
  network_id          = module.network.network_id
  deletion_protection = var.deletion_protection

  # The private IP needs the peering to exist first.
  depends_on = [module.network]
}

module "registry" {
  source = "../../modules/artifact-registry"

  project_id     = var.project_id
  location       = var.region
  repository_id  = "fencepost"
  reader_members = ["serviceAccount:${module.gke.nodes_service_account_email}"]
  writer_members = var.image_publishers

  depends_on = [google_project_service.required]
}

module "workload" {
  source   = "../../modules/workload-identity"
  for_each = local.workloads

  project_id                 = var.project_id
  account_id                 = each.value.account_id
  display_name               = each.value.display_name
  kubernetes_namespace       = var.kubernetes_namespace
  kubernetes_service_account = each.value.ksa
  cloud_sql_instance_name    = module.cloud_sql.instance_name
  secrets                    = each.value.secrets
  secret_replica_location    = var.region

  # The workload pool exists once the cluster does.
  depends_on = [module.gke]
}

module "alerts" {
  source = "../../modules/monitoring-channels"

  project_id          = var.project_id
  email_addresses     = var.alert_email_addresses
  pager_email_address = var.pager_email_address

  depends_on = [google_project_service.required]
}

module "budget" {
  source = "../../modules/billing-budget"

  billing_account_id       = var.billing_account_id
  project_number           = data.google_project.this.number
  display_name             = "${var.name_prefix} monthly budget"
  monthly_amount           = var.monthly_budget
  currency_code            = var.budget_currency_code
  notification_channel_ids = module.alerts.all_channel_ids

  depends_on = [google_project_service.required]
}
