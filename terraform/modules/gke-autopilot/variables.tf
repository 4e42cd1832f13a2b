variable "project_id" {
  description = "The Google Cloud project of the cluster; its workload pool is PROJECT.svc.id.goog."
  type        = string
}

variable "region" {
  description = "The cluster's region (Autopilot clusters are regional)."
  type        = string
}

variable "name" {
  description = "The cluster's name; the nodes' service account is NAME-nodes."
  type        = string

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,22}[a-z0-9])?$", var.name))
    error_message = "name must be a lower-case RFC 1035 name of at most 24 characters (the nodes' account id adds -nodes)."
  }
}

variable "network_self_link" {
  description = "The VPC the cluster joins."
  type        = string
}

variable "subnetwork_self_link" {
  description = "The subnetwork of the nodes, with the Pods' and Services' secondary ranges."
  type        = string
}

variable "pods_range_name" {
  description = "The subnetwork's secondary range for Pods."
  type        = string
}

variable "services_range_name" {
  description = "The subnetwork's secondary range for Services."
  type        = string
}

variable "master_ipv4_cidr_block" {
  description = "The /28 the control plane's private endpoint takes; must not overlap any range of the VPC."
  type        = string

  validation {
    condition     = can(cidrhost(var.master_ipv4_cidr_block, 0)) && endswith(var.master_ipv4_cidr_block, "/28")
    error_message = "master_ipv4_cidr_block must be a /28, e.g. 172.16.0.0/28."
  }
}

variable "enable_private_endpoint" {
  description = "true: the control plane has no public endpoint at all (reach it from inside the VPC, e.g. a bastion or Cloud Build private pool). false: public endpoint, reachable only from master_authorized_networks."
  type        = bool
  default     = true
}

variable "master_authorized_networks" {
  description = "Networks allowed to reach the control plane (with a public endpoint: required and the only ones; with a private one: which VPC-internal ranges may)."
  type = list(object({
    cidr_block   = string
    display_name = string
  }))
  default = []

  validation {
    condition     = alltrue([for n in var.master_authorized_networks : can(cidrhost(n.cidr_block, 0)) && n.cidr_block != "0.0.0.0/0"])
    error_message = "Every authorized network must be a CIDR block, and 0.0.0.0/0 is not an authorization."
  }
}

variable "release_channel" {
  description = "The GKE release channel: REGULAR (default) or STABLE. RAPID is refused for production."
  type        = string
  default     = "REGULAR"

  validation {
    condition     = contains(["REGULAR", "STABLE"], var.release_channel)
    error_message = "release_channel must be REGULAR or STABLE."
  }
}

variable "deletion_protection" {
  description = "Terraform refuses to destroy the cluster while true."
  type        = bool
  default     = true
}

variable "maintenance_start_time" {
  description = "Start of the first maintenance window (RFC 3339)."
  type        = string
  default     = "2026-01-03T02:00:00Z"
}

variable "maintenance_end_time" {
  description = "End of the first maintenance window (RFC 3339); the window repeats by maintenance_recurrence."
  type        = string
  default     = "2026-01-03T08:00:00Z"
}

variable "maintenance_recurrence" {
  description = "RFC 5545 RRULE of the maintenance window."
  type        = string
  default     = "FREQ=WEEKLY;BYDAY=SA,SU"
}
