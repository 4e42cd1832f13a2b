output "instance_name" {
  description = "The instance's name."
  value       = google_sql_database_instance.this.name
}

output "connection_name" {
  description = "PROJECT:REGION:NAME, for the Cloud SQL Java connector (cloudSqlInstance) or the Auth Proxy."
  value       = google_sql_database_instance.this.connection_name
}

output "private_ip_address" {
  description = "The instance's private IP in the VPC."
  value       = google_sql_database_instance.this.private_ip_address
}

output "dns_name" {
  description = "The DNS name the server certificate carries (CA pool mode); connect to it for verify-full."
  value       = google_sql_database_instance.this.dns_name
}

output "server_ca_certs" {
  description = "The server CA certificate(s), public, for FENCEPOST_DB_TLS_ROOTCERT on a direct connection."
  value       = google_sql_database_instance.this.server_ca_cert[*].cert
}

output "databases" {
  description = "The store's database names, keyed by store."
  value = {
    lockdb  = google_sql_database.lockdb.name
    paydb   = google_sql_database.paydb.name
    proxydb = google_sql_database.proxydb.name
    batchdb = google_sql_database.batchdb.name
  }
}
