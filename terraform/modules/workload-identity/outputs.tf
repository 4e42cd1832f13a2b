output "email" {
  description = "The Google service account's email, for the KSA annotation iam.gke.io/gcp-service-account."
  value       = google_service_account.this.email
}

output "kubernetes_service_account" {
  description = "NAMESPACE/NAME of the Kubernetes service account bound to it."
  value       = "${var.kubernetes_namespace}/${var.kubernetes_service_account}"
}

output "database_user" {
  description = "The PostgreSQL user name of its IAM database user (SA@PROJECT.iam), or null without a database."
  value       = one(google_sql_user.iam[*].name)
}

output "secret_ids" {
  description = "Its secrets' ids, by short name (the containers; values are added out of band)."
  value       = { for k, s in google_secret_manager_secret.this : k => s.secret_id }
}
