output "repository_url" {
  description = "LOCATION-docker.pkg.dev/PROJECT/REPOSITORY_ID: prefix of every image (the chart's image.registry/repository)."
  value       = "${google_artifact_registry_repository.this.location}-docker.pkg.dev/${var.project_id}/${google_artifact_registry_repository.this.repository_id}"
}

output "repository_id" {
  description = "The repository's id."
  value       = google_artifact_registry_repository.this.repository_id
}
