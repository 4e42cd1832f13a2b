# Where alerts go: one email channel per address, and the pager through its email integration
# (PagerDuty, Opsgenie and the like accept mail), so no pager service key, which is a secret, has
# to pass through Terraform. A PagerDuty channel with its key is created out of band if wanted.

resource "google_monitoring_notification_channel" "email" {
  for_each = toset(var.email_addresses)

  project      = var.project_id
  display_name = "Fencepost alerts: ${each.key}"
  type         = "email"

  labels = {
    email_address = each.key
  }
}

resource "google_monitoring_notification_channel" "pager" {
  count = var.pager_email_address == null ? 0 : 1

  project      = var.project_id
  display_name = "Fencepost pager"
  type         = "email"

  labels = {
    email_address = var.pager_email_address
  }
}
