variable "project_id" {
  description = "The Google Cloud project of the service account, the workload pool and the secrets."
  type        = string
}

variable "account_id" {
  description = "The Google service account's id (ACCOUNT_ID@PROJECT.iam.gserviceaccount.com); also the prefix of its secrets' ids."
  type        = string

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{4,28}[a-z0-9])$", var.account_id))
    error_message = "account_id must be 6 to 30 lower-case letters, digits or hyphens, starting with a letter."
  }
}

variable "display_name" {
  description = "The service account's display name."
  type        = string
}

variable "kubernetes_namespace" {
  description = "Namespace of the Kubernetes service account that may act as this account."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$", var.kubernetes_namespace))
    error_message = "kubernetes_namespace must be a DNS label."
  }
}

variable "kubernetes_service_account" {
  description = "Name of the Kubernetes service account (the chart's serviceAccountName) that may act as this account."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$", var.kubernetes_service_account))
    error_message = "kubernetes_service_account must be a DNS subdomain name."
  }
}

variable "cloud_sql_instance_name" {
  description = "The Cloud SQL instance this workload logs in to with IAM database authentication; null for a workload without a database."
  type        = string
  default     = null
}

variable "secrets" {
  description = "The workload's own secrets: short name => what it holds. Created as ACCOUNT_ID-NAME, readable by this account only; values are added out of band."
  type        = map(string)
  default     = {}

  validation {
    condition     = alltrue([for k in keys(var.secrets) : can(regex("^[a-z][-a-z0-9]{0,60}$", k))])
    error_message = "Secret names must be lower-case letters, digits and hyphens."
  }
}

variable "secret_replica_location" {
  description = "The one region the secrets' payloads are stored in (user-managed replication keeps them in the deployment's region)."
  type        = string
}
