variable "project_id" {
  description = "The Google Cloud project whose Cloud Monitoring holds the channels."
  type        = string
}

variable "email_addresses" {
  description = "Addresses that receive alerts and budget notifications (a team list, not a person)."
  type        = list(string)

  validation {
    condition     = length(var.email_addresses) > 0 && alltrue([for a in var.email_addresses : can(regex("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", a))])
    error_message = "email_addresses must hold at least one email address."
  }
}

variable "pager_email_address" {
  description = "The pager's email integration address (paged alerts), or null for none."
  type        = string
  default     = null

  validation {
    condition     = var.pager_email_address == null || can(regex("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", var.pager_email_address))
    error_message = "pager_email_address must be an email address or null."
  }
}
