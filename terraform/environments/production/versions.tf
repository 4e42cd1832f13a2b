terraform {
  required_version = ">= 1.5.0, < 2.0.0"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = "~> 6.20"
    }
  }

  # State in a GCS bucket the operator creates first (versioned, uniform access, in the
  # deployment's region); bucket and prefix are given at init:
  #   terraform init -backend-config="bucket=BUCKET" -backend-config="prefix=fencepost/production"
  backend "gcs" {}
}
