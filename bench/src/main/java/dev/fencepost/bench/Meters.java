package dev.fencepost.bench;

import java.util.Map;

/** What the suite reads around every run: CPU per process role and fsyncs of a store. */
public interface Meters {

  /** CPU nanoseconds so far per process role (harness, etcd, postgres, server-etcd, server-pg). */
  Map<String, Long> cpuNanos();

  /** The store's fsync counter so far; -1 when it cannot be read. */
  long fsyncs(Store store);

  /** Nothing metered (tests of the measurement itself). */
  Meters NONE =
      new Meters() {
        @Override
        public Map<String, Long> cpuNanos() {
          return Map.of();
        }

        @Override
        public long fsyncs(Store store) {
          return -1;
        }
      };

  /** The environment's counters. */
  static Meters of(Environment env) {
    return new Meters() {
      @Override
      public Map<String, Long> cpuNanos() {
        return env.cpuNanos();
      }

      @Override
      public long fsyncs(Store store) {
        return switch (store) {
          case ETCD -> env.etcdFsyncs();
          case POSTGRES -> env.postgresWalSyncs();
          case NONE -> 0;
        };
      }
    };
  }
}
