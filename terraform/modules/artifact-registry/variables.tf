variable "project_id" {
  description = "The Google Cloud project of the repository."
  type        = string
}

variable "location" {
  description = "The repository's region (the cluster's, so pulls stay in region)."
  type        = string
}

variable "repository_id" {
  description = "The repository's id; images are named REPOSITORY_ID/<artifactId>."
  type        = string
  default     = "fencepost"

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$", var.repository_id))
    error_message = "repository_id must be lower-case letters, digits and hyphens."
  }
}

variable "keep_recent_versions" {
  description = "Versions of each image kept by the cleanup policy whatever their age."
  type        = number
  default     = 20
}

variable "reader_members" {
  description = "IAM members that may pull (serviceAccount:...), e.g. the GKE nodes' service account."
  type        = list(string)
  default     = []
}

variable "writer_members" {
  description = "IAM members that may push, e.g. the CI's service account (serviceAccount:...)."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for m in var.writer_members : startswith(m, "serviceAccount:") || startswith(m, "group:")])
    error_message = "Writers must be service accounts or groups, not individual users."
  }
}
