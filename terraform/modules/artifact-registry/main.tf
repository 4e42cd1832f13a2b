# One Docker repository, "fencepost": images are LOCATION-docker.pkg.dev/PROJECT/fencepost/<artifactId>
# (lock-server-app, rail-proxy-app, payout-job, reconciliation-job, db for the migrations).
# Tags are immutable: a tag names one build for ever, so a rollout cannot change under a running
# Deployment; the chart may pin digests too.

resource "google_artifact_registry_repository" "this" {
  project       = var.project_id
  location      = var.location
  repository_id = var.repository_id
  format        = "DOCKER"
  description   = "Fencepost images, one per shipped module (fencepost/<artifactId>)."

  docker_config {
    immutable_tags = true
  }

  cleanup_policy_dry_run = false

  cleanup_policies {
    id     = "keep-recent-versions"
    action = "KEEP"
    most_recent_versions {
      keep_count = var.keep_recent_versions
    }
  }

  cleanup_policies {
    id     = "delete-old-untagged"
    action = "DELETE"
    condition {
      tag_state  = "UNTAGGED"
      older_than = "2592000s"
    }
  }
}

# Readers pull (the GKE nodes' service account); writers push (the CI's identity, managed outside
# this configuration and given here by email).
resource "google_artifact_registry_repository_iam_member" "readers" {
  for_each = toset(var.reader_members)

  project    = var.project_id
  location   = google_artifact_registry_repository.this.location
  repository = google_artifact_registry_repository.this.name
  role       = "roles/artifactregistry.reader"
  member     = each.key
}

resource "google_artifact_registry_repository_iam_member" "writers" {
  for_each = toset(var.writer_members)

  project    = var.project_id
  location   = google_artifact_registry_repository.this.location
  repository = google_artifact_registry_repository.this.name
  role       = "roles/artifactregistry.writer"
  member     = each.key
}
