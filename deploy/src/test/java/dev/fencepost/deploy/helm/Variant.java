package dev.fencepost.deploy.helm;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The documented ways to install the chart (docs/deploy.md): the chart's own defaults and each
 * example values file under {@code helm/examples/}.
 */
enum Variant {
  DEFAULTS(null, "postgres"),
  POSTGRES("postgres.yaml", "postgres"),
  ETCD_INTERNAL("etcd-internal.yaml", "etcd"),
  ETCD_EXTERNAL("etcd-external.yaml", "etcd"),
  STAGING_WITH_STUB("staging.yaml", "postgres"),
  MONITORING_ON("monitoring.yaml", "etcd");

  private final String valuesFile;
  private final String backend;

  Variant(String valuesFile, String backend) {
    this.valuesFile = valuesFile;
    this.backend = backend;
  }

  Optional<Path> valuesFile() {
    return Optional.ofNullable(valuesFile).map(name -> HelmChart.examplesDir().resolve(name));
  }

  String backend() {
    return backend;
  }
}
