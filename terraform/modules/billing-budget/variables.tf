variable "billing_account_id" {
  description = "The billing account (XXXXXX-XXXXXX-XXXXXX) the budget is created on; the applying identity needs roles/billing.costsManager on it."
  type        = string

  validation {
    condition     = can(regex("^[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}$", var.billing_account_id))
    error_message = "billing_account_id must look like 0X0X0X-0X0X0X-0X0X0X."
  }
}

variable "project_number" {
  description = "The project's number (not its id): the budget counts this project's spend only."
  type        = string
}

variable "display_name" {
  description = "The budget's name in the billing console."
  type        = string
}

variable "monthly_amount" {
  description = "The monthly budget, in whole units of currency_code (a daily cap times 31 if the cap is daily)."
  type        = number

  validation {
    condition     = var.monthly_amount > 0 && floor(var.monthly_amount) == var.monthly_amount
    error_message = "monthly_amount must be a positive whole number."
  }
}

variable "currency_code" {
  description = "The billing account's currency (ISO 4217), e.g. EUR or USD."
  type        = string
  default     = "USD"

  validation {
    condition     = can(regex("^[A-Z]{3}$", var.currency_code))
    error_message = "currency_code must be a three-letter ISO 4217 code."
  }
}

variable "notification_channel_ids" {
  description = "Cloud Monitoring channels notified at each threshold (besides the billing account's admins)."
  type        = list(string)

  validation {
    condition     = length(var.notification_channel_ids) > 0 && length(var.notification_channel_ids) <= 5
    error_message = "A budget notifies 1 to 5 monitoring channels."
  }
}
