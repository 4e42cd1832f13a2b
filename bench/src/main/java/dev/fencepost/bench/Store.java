package dev.fencepost.bench;

/** Which shared store a target writes to, for fsync accounting. */
public enum Store {
  NONE,
  ETCD,
  POSTGRES
}
