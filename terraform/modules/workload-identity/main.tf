# One workload's Google identity: its service account, the one Kubernetes service account that
# may act as it (Workload Identity), its Cloud SQL IAM database user, and the Secret Manager
# secrets that are its own. Each secret is created here, beside the only binding that lets anyone
# read it, so no workload can be given another's secret by a typo in a list elsewhere.

resource "google_service_account" "this" {
  project      = var.project_id
  account_id   = var.account_id
  display_name = var.display_name
  description  = "Fencepost ${var.kubernetes_service_account} (namespace ${var.kubernetes_namespace}), through Workload Identity."
}

# Only the pods running as KSA NAMESPACE/NAME in this project's workload pool may act as it.
resource "google_service_account_iam_member" "workload_identity" {
  service_account_id = google_service_account.this.name
  role               = "roles/iam.workloadIdentityUser"
  member             = "serviceAccount:${var.project_id}.svc.id.goog[${var.kubernetes_namespace}/${var.kubernetes_service_account}]"
}

# Connect to the one instance (Java connector or Auth Proxy) and log in with its IAM identity.
resource "google_project_iam_member" "cloudsql_client" {
  count = var.cloud_sql_instance_name == null ? 0 : 1

  project = var.project_id
  role    = "roles/cloudsql.client"
  member  = google_service_account.this.member

  condition {
    title       = "only-${var.cloud_sql_instance_name}"
    description = "Only the Fencepost instance."
    expression  = "resource.name == 'projects/${var.project_id}/instances/${var.cloud_sql_instance_name}' && resource.service == 'sqladmin.googleapis.com'"
  }
}

resource "google_project_iam_member" "cloudsql_instance_user" {
  count = var.cloud_sql_instance_name == null ? 0 : 1

  project = var.project_id
  role    = "roles/cloudsql.instanceUser"
  member  = google_service_account.this.member

  condition {
    title       = "only-${var.cloud_sql_instance_name}"
    description = "Only the Fencepost instance."
    expression  = "resource.name == 'projects/${var.project_id}/instances/${var.cloud_sql_instance_name}' && resource.service == 'sqladmin.googleapis.com'"
  }
}

# The IAM database user: PostgreSQL user SA@PROJECT.iam, no password. What it may do in a
# database is the NOLOGIN role it is made a member of (the bootstrap SQL): a runtime role
# (<db>_app) for an application, the owner role (<db>_owner) for the migrations (ADR 0160).
resource "google_sql_user" "iam" {
  count = var.cloud_sql_instance_name == null ? 0 : 1

  project  = var.project_id
  instance = var.cloud_sql_instance_name
  name     = trimsuffix(google_service_account.this.email, ".gserviceaccount.com")
  type     = "CLOUD_IAM_SERVICE_ACCOUNT"
}

# The workload's secrets: containers only. Their values (signing keys, etcd client certificates
# and password, rail credentials) are added out of band (gcloud secrets versions add), never
# here: a value in Terraform would sit in its state and plan output.
resource "google_secret_manager_secret" "this" {
  for_each = var.secrets

  project   = var.project_id
  secret_id = "${var.account_id}-${each.key}"

  labels = {
    app      = "fencepost"
    workload = var.account_id
  }

  annotations = {
    description = each.value
  }

  replication {
    user_managed {
      replicas {
        location = var.secret_replica_location
      }
    }
  }
}

resource "google_secret_manager_secret_iam_member" "accessor" {
  for_each = var.secrets

  project   = var.project_id
  secret_id = google_secret_manager_secret.this[each.key].secret_id
  role      = "roles/secretmanager.secretAccessor"
  member    = google_service_account.this.member
}
