provider "google" {
  project = var.project_id
  region  = var.region

  # The Billing Budgets API bills its quota to a project; with user credentials it needs one.
  billing_project       = var.project_id
  user_project_override = true
}
