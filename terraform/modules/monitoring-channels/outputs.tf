output "email_channel_ids" {
  description = "The email channels' ids (projects/P/notificationChannels/N)."
  value       = [for c in google_monitoring_notification_channel.email : c.id]
}

output "pager_channel_ids" {
  description = "The pager channel's id, as a list (empty without a pager)."
  value       = google_monitoring_notification_channel.pager[*].id
}

output "all_channel_ids" {
  description = "Every channel's id."
  value       = concat([for c in google_monitoring_notification_channel.email : c.id], google_monitoring_notification_channel.pager[*].id)
}
