output "budget_id" {
  description = "The budget's resource name."
  value       = google_billing_budget.this.id
}
