package dev.fencepost.lock.client;

/**
 * A {@link LockClient} whose owner starts and stops it: what {@link LockClients#builder} builds for
 * code that runs without a Spring context. In a Spring Boot application the starter's
 * auto-configuration builds the client and the context starts and stops it.
 *
 * <p>Nothing is acquired before {@link #start()}: acquiring needs the session it opens. {@link
 * #stop()} (or {@link #close()}) signals every lock still held as lost, then closes the session.
 */
public interface StartableLockClient extends LockClient, AutoCloseable {

  /** Opens the session and starts its heartbeat; does nothing when already running. */
  void start();

  /**
   * Signals every held lock lost (its work should stop), closes the session; does nothing when not
   * running.
   */
  void stop();

  /** Whether the client has been started and not stopped. */
  boolean isRunning();

  /** {@link #stop()}. */
  @Override
  void close();

  /**
   * A {@link LockTemplate} over this client whose default wait is the client's default wait (the
   * time the lock server may wait for a held key, {@link LockClients.Builder#defaultWait}).
   */
  LockTemplate template();
}
