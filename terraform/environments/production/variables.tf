variable "project_id" {
  description = "The Google Cloud project Fencepost runs in (dedicated to it: project-level bindings here assume so)."
  type        = string

  validation {
    condition     = can(regex("^[a-z][-a-z0-9]{4,28}[a-z0-9]$", var.project_id))
    error_message = "project_id must be a Google Cloud project id (6 to 30 lower-case letters, digits and hyphens)."
  }
}

variable "region" {
  description = "The region of the cluster, the database, the registry and the secrets' replicas."
  type        = string
  default     = "europe-west1"
}

variable "name_prefix" {
  description = "Prefix of the resources' names: the cluster is NAME_PREFIX, the VPC NAME_PREFIX-vpc, the instance NAME_PREFIX-pg."
  type        = string
  default     = "fencepost"

  validation {
    condition     = can(regex("^[a-z][-a-z0-9]{0,16}[a-z0-9]$", var.name_prefix))
    error_message = "name_prefix must be 2 to 18 lower-case letters, digits and hyphens, starting with a letter."
  }
}

variable "kubernetes_namespace" {
  description = "The namespace the chart is installed in; every workload's Kubernetes service account lives there."
  type        = string
  default     = "fencepost"
}

variable "nodes_cidr" {
  description = "The nodes' subnetwork range."
  type        = string
  default     = "10.10.0.0/20"
}

variable "pods_cidr" {
  description = "The Pods' secondary range (VPC-native)."
  type        = string
  default     = "10.20.0.0/17"
}

variable "services_cidr" {
  description = "The Services' secondary range (VPC-native)."
  type        = string
  default     = "10.30.0.0/22"
}

variable "master_ipv4_cidr_block" {
  description = "The /28 of the control plane's private endpoint."
  type        = string
  default     = "172.16.0.0/28"
}

variable "enable_private_endpoint" {
  description = "true: the control plane is reachable only from inside the VPC. false: also publicly, from master_authorized_networks only."
  type        = bool
  default     = true
}

variable "master_authorized_networks" {
  description = "CIDR blocks allowed to reach the control plane (required when enable_private_endpoint is false)."
  type = list(object({
    cidr_block   = string
    display_name = string
  }))
  default = []
}

variable "release_channel" {
  description = "GKE release channel, REGULAR or STABLE."
  type        = string
  default     = "REGULAR"
}

variable "database_tier" {
  description = "Cloud SQL machine tier of the regional instance."
  type        = string
  default     = "db-custom-2-7680"
}

variable "deletion_protection" {
  description = "Deletion protection of the cluster and the database (Terraform's and the API's). Only a throw-away environment sets false."
  type        = bool
  default     = true
}

variable "image_publishers" {
  description = "IAM members allowed to push images (the CI's service account), e.g. [\"serviceAccount:ci@other-project.iam.gserviceaccount.com\"]."
  type        = list(string)
  default     = []
}

variable "alert_email_addresses" {
  description = "Email addresses of the alert and budget notification channels."
  type        = list(string)
}

variable "pager_email_address" {
  description = "The pager's email integration address, or null for no pager channel."
  type        = string
  default     = null
}

variable "billing_account_id" {
  description = "The billing account paying for the project (XXXXXX-XXXXXX-XXXXXX), on which the budget is created."
  type        = string
}

variable "monthly_budget" {
  description = "Monthly budget in whole units of budget_currency_code; alerts at 50 %, 90 % and 100 % of actual spend and at 100 % forecast."
  type        = number
}

variable "budget_currency_code" {
  description = "The billing account's currency (ISO 4217)."
  type        = string
  default     = "USD"
}
