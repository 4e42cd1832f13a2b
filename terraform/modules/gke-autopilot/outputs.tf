output "name" {
  description = "The cluster's name (gcloud container clusters get-credentials NAME --region REGION)."
  value       = google_container_cluster.this.name
}

output "endpoint" {
  description = "The control plane's endpoint (private when enable_private_endpoint)."
  value       = google_container_cluster.this.endpoint
}

output "workload_pool" {
  description = "The Workload Identity pool, PROJECT.svc.id.goog."
  value       = google_container_cluster.this.workload_identity_config[0].workload_pool
}

output "nodes_service_account_email" {
  description = "The nodes' service account (it needs read access to the image registry)."
  value       = google_service_account.nodes.email
}
