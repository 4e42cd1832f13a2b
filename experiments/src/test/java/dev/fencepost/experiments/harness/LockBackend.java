package dev.fencepost.experiments.harness;

/** The lock server's backend for a run. PostgreSQL is the CI tier's; etcd is a hook. */
public enum LockBackend {
  /** lockdb on the harness's embedded PostgreSQL; grants extracted from {@code lock_event}. */
  POSTGRES,
  /**
   * A one-member etcd (the launcher's {@code EtcdCluster}). The lock server is started against it;
   * the {@code grant} records must come from the scenario's own watch of the lock prefix (jetcd is
   * a test dependency of this module), see HARNESS.md.
   */
  ETCD
}
