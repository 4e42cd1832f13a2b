output "network_id" {
  description = "The VPC's id (projects/P/global/networks/N), as Cloud SQL's private_network wants it."
  value       = google_compute_network.this.id
}

output "network_self_link" {
  description = "The VPC's self link, for the cluster."
  value       = google_compute_network.this.self_link
}

output "subnetwork_self_link" {
  description = "The nodes' subnetwork, for the cluster."
  value       = google_compute_subnetwork.nodes.self_link
}

output "pods_range_name" {
  description = "Name of the Pods' secondary range."
  value       = "pods"
}

output "services_range_name" {
  description = "Name of the Services' secondary range."
  value       = "services"
}

output "private_services_connection" {
  description = "The private services access connection; Cloud SQL's private IP depends on it."
  value       = google_service_networking_connection.private_services.id
}
