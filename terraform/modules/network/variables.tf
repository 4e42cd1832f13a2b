variable "project_id" {
  description = "The Google Cloud project the network is created in."
  type        = string
}

variable "region" {
  description = "The region of the subnetwork, the router and Cloud NAT (the cluster's and the database's region)."
  type        = string
}

variable "name" {
  description = "The VPC's name; the subnetwork, router, NAT and private services range are named after it."
  type        = string

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,50}[a-z0-9])?$", var.name))
    error_message = "name must be a lower-case RFC 1035 name of at most 52 characters."
  }
}

variable "nodes_cidr" {
  description = "Primary range of the nodes' subnetwork."
  type        = string

  validation {
    condition     = can(cidrhost(var.nodes_cidr, 0))
    error_message = "nodes_cidr must be a CIDR block, e.g. 10.10.0.0/20."
  }
}

variable "pods_cidr" {
  description = "Secondary range for Pods (VPC-native); Autopilot needs room for its node and Pod density, /17 or larger."
  type        = string

  validation {
    condition     = can(cidrhost(var.pods_cidr, 0))
    error_message = "pods_cidr must be a CIDR block, e.g. 10.20.0.0/17."
  }
}

variable "services_cidr" {
  description = "Secondary range for Services (VPC-native)."
  type        = string

  validation {
    condition     = can(cidrhost(var.services_cidr, 0))
    error_message = "services_cidr must be a CIDR block, e.g. 10.30.0.0/22."
  }
}

variable "private_services_prefix_length" {
  description = "Prefix length of the range reserved for private services access (Cloud SQL's private IP comes from it)."
  type        = number
  default     = 20

  validation {
    condition     = var.private_services_prefix_length >= 16 && var.private_services_prefix_length <= 24
    error_message = "private_services_prefix_length must be between 16 and 24."
  }
}
