variable "project_id" {
  description = "The Google Cloud project of the instance."
  type        = string
}

variable "region" {
  description = "The instance's region; REGIONAL availability puts the standby in another zone of it."
  type        = string
}

variable "name" {
  description = "The instance's name (its connection name is PROJECT:REGION:NAME). A deleted instance's name cannot be reused for about a week."
  type        = string

  validation {
    condition     = can(regex("^[a-z]([-a-z0-9]{0,60}[a-z0-9])?$", var.name))
    error_message = "name must be lower-case letters, digits and hyphens, starting with a letter."
  }
}

variable "database_version" {
  description = "PostgreSQL major version (the suite runs on 15 and later)."
  type        = string
  default     = "POSTGRES_16"

  validation {
    condition     = contains(["POSTGRES_15", "POSTGRES_16", "POSTGRES_17"], var.database_version)
    error_message = "database_version must be POSTGRES_15, POSTGRES_16 or POSTGRES_17."
  }
}

variable "tier" {
  description = "Machine tier, a custom or predefined Enterprise tier (shared-core db-f1-micro/db-g1-small have no SLA and are refused)."
  type        = string
  default     = "db-custom-2-7680"

  validation {
    condition     = !contains(["db-f1-micro", "db-g1-small"], var.tier)
    error_message = "Shared-core tiers carry no SLA; use a db-custom-* or dedicated tier."
  }
}

variable "disk_size_gb" {
  description = "Initial SSD size in GB; it grows automatically."
  type        = number
  default     = 20
}

variable "network_id" {
  description = "The VPC (projects/P/global/networks/N) with private services access; the instance's only address is in it."
  type        = string

  validation {
    condition     = startswith(var.network_id, "projects/")
    error_message = "network_id must be a network id, projects/PROJECT/global/networks/NAME."
  }
}

variable "deletion_protection" {
  description = "Both Terraform's and the API's deletion protection of the instance."
  type        = bool
  default     = true
}

variable "backup_start_time" {
  description = "Daily backup window start, HH:MM in UTC."
  type        = string
  default     = "02:00"

  validation {
    condition     = can(regex("^([01][0-9]|2[0-3]):[0-5][0-9]$", var.backup_start_time))
    error_message = "backup_start_time must be HH:MM (UTC)."
  }
}

variable "retained_backups" {
  description = "Number of daily backups kept."
  type        = number
  default     = 14

  validation {
    condition     = var.retained_backups >= 7 && var.retained_backups <= 365
    error_message = "retained_backups must be between 7 and 365."
  }
}

variable "transaction_log_retention_days" {
  description = "Days of write-ahead log kept for point-in-time recovery (1 to 7)."
  type        = number
  default     = 7

  validation {
    condition     = var.transaction_log_retention_days >= 1 && var.transaction_log_retention_days <= 7
    error_message = "transaction_log_retention_days must be between 1 and 7."
  }
}

variable "maintenance_day" {
  description = "Day of the maintenance window, 1 (Monday) to 7 (Sunday)."
  type        = number
  default     = 7
}

variable "maintenance_hour" {
  description = "Hour of the maintenance window (UTC)."
  type        = number
  default     = 3
}
