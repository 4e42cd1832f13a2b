# Cloud SQL for PostgreSQL: one regional (HA) instance holding the four stores, each its own
# database. A commit that returned must survive a crash (the fences and high-waters the guards
# acted on, ADR 0156): synchronous_commit on at the server too, a regional standby with
# synchronous replication of the disk, and point-in-time recovery from the write-ahead log.

resource "google_sql_database_instance" "this" {
  project          = var.project_id
  name             = var.name
  region           = var.region
  database_version = var.database_version

  # Terraform refuses to destroy the instance; deletion_protection_enabled below also makes the
  # API refuse a deletion from the console or gcloud.
  deletion_protection = var.deletion_protection

  settings {
    tier                        = var.tier
    edition                     = "ENTERPRISE"
    availability_type           = "REGIONAL"
    deletion_protection_enabled = var.deletion_protection
    disk_type                   = "PD_SSD"
    disk_size                   = var.disk_size_gb
    disk_autoresize             = true

    backup_configuration {
      enabled                        = true
      point_in_time_recovery_enabled = true
      start_time                     = var.backup_start_time
      transaction_log_retention_days = var.transaction_log_retention_days

      backup_retention_settings {
        retained_backups = var.retained_backups
        retention_unit   = "COUNT"
      }
    }

    ip_configuration {
      ipv4_enabled    = false
      private_network = var.network_id
      ssl_mode        = "ENCRYPTED_ONLY"
      # A CA pool's server certificate carries the instance's DNS name, so a direct connection
      # can verify-full against it (ADR 0157).
      server_ca_mode = "GOOGLE_MANAGED_CAS_CA"
    }

    database_flags {
      name  = "cloudsql.iam_authentication"
      value = "on"
    }

    database_flags {
      name  = "synchronous_commit"
      value = "on"
    }

    # Group commit (ADR 0203): while 5 or more transactions are open, a commit waits up to 1 ms
    # for others and one WAL flush makes them all durable. A commit still returns only once its
    # WAL is flushed; measured, it took a quarter of the flushes per payout at no cost in
    # throughput.
    database_flags {
      name  = "commit_delay"
      value = "1000"
    }

    database_flags {
      name  = "commit_siblings"
      value = "5"
    }

    database_flags {
      name  = "log_lock_waits"
      value = "on"
    }

    maintenance_window {
      day          = var.maintenance_day
      hour         = var.maintenance_hour
      update_track = "stable"
    }

    insights_config {
      query_insights_enabled  = true
      record_application_tags = false
      record_client_address   = false
    }
  }

  lifecycle {
    # disk_autoresize grows the disk; Terraform must not try to shrink it back.
    ignore_changes = [settings[0].disk_size]
  }
}

# One database per store (README.md, docs/security.md). The owner and runtime roles of each
# (ADR 0160) are created in SQL by the bootstrap script this module renders (output
# bootstrap_sql): Cloud SQL's API creates login users only.
resource "google_sql_database" "lockdb" {
  project  = var.project_id
  instance = google_sql_database_instance.this.name
  name     = "lockdb"
}

resource "google_sql_database" "paydb" {
  project  = var.project_id
  instance = google_sql_database_instance.this.name
  name     = "paydb"
}

resource "google_sql_database" "proxydb" {
  project  = var.project_id
  instance = google_sql_database_instance.this.name
  name     = "proxydb"
}

resource "google_sql_database" "batchdb" {
  project  = var.project_id
  instance = google_sql_database_instance.this.name
  name     = "batchdb"
}
