package dev.fencepost.experiments.harness;

/**
 * The lock server's backend for a run. Most scenarios run on PostgreSQL; the chaos run runs on both
 * (ADR 0171), the etcd restore on etcd.
 */
public enum LockBackend {
  /** lockdb on the harness's embedded PostgreSQL; grants extracted from {@code lock_event}. */
  POSTGRES,
  /**
   * The shared stack's is a one-member etcd (the launcher's {@code EtcdCluster}); a scenario may
   * own a cluster of its own (the chaos run's has three members). The lock server is started
   * against it; the {@code grant} records must come from the scenario's own watch of the lock
   * prefix (jetcd is a test dependency of this module), see HARNESS.md.
   */
  ETCD
}
