package dev.fencepost.bench;

import java.time.Duration;
import java.util.Set;

/**
 * One thing the suite measures: a floor or a lock implementation. A target hands out {@link
 * Client}s, one per load-generating thread, each standing for one independent worker (its own
 * session, lease, connection or registry, as the peer would be deployed).
 */
public interface LockTarget extends AutoCloseable {

  /** Short id used in tables: F1, E1, P2, ... */
  String id();

  /** What it is, in one line. */
  String title();

  Store store();

  /** The operations this target supports; the others are reported as "n/a" with {@link #why}. */
  Set<Op> ops();

  /** Why an operation is not supported or how it is emulated; empty if nothing to say. */
  default String why(Op op) {
    return "";
  }

  /** A new client; the caller closes it. */
  Client client(int index) throws Exception;

  @Override
  default void close() throws Exception {}

  /** A target whose description is fixed when it is made; subclasses supply only the clients. */
  abstract class Described implements LockTarget {
    private final String id;
    private final String title;
    private final Store store;
    private final Set<Op> ops;

    protected Described(String id, String title, Store store, Set<Op> ops) {
      this.id = id;
      this.title = title;
      this.store = store;
      this.ops = Set.copyOf(ops);
    }

    @Override
    public final String id() {
      return id;
    }

    @Override
    public final String title() {
      return title;
    }

    @Override
    public final Store store() {
      return store;
    }

    @Override
    public final Set<Op> ops() {
      return ops;
    }
  }

  /** One worker's view of the target. Not shared between threads. */
  interface Client extends AutoCloseable {

    default void floor() throws Exception {
      throw new UnsupportedOperationException();
    }

    /** A non-waiting acquire: a handle, or null when the key is held by someone else. */
    default Object acquire(String key) throws Exception {
      throw new UnsupportedOperationException();
    }

    /** An acquire that waits up to {@code max} for the key; never null. */
    default Object acquireWaiting(String key, Duration max) throws Exception {
      throw new UnsupportedOperationException();
    }

    default void release(String key, Object handle) throws Exception {
      throw new UnsupportedOperationException();
    }

    /** Renews a held lock; returns the handle to use from now on (usually the same). */
    default Object renew(String key, Object handle) throws Exception {
      throw new UnsupportedOperationException();
    }

    default void inspect(String key) throws Exception {
      throw new UnsupportedOperationException();
    }

    @Override
    default void close() throws Exception {}
  }
}
