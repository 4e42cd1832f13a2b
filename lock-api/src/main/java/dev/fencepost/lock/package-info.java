/**
 * The Fencepost lock contract, for application code and for anyone implementing a client.
 *
 * <p>Two kinds of mechanism live behind these types, and the Javadoc of each says which it is:
 *
 * <ul>
 *   <li><b>Safety</b>: the {@link dev.fencepost.lock.FencingToken}. Every guard (the payout
 *       database and the rail proxy) compares the token it is shown against the highest it has seen
 *       and refuses anything older. This holds under arbitrary pauses, because the guard does not
 *       trust the caller's idea of time.
 *   <li><b>Liveness aids</b>: lease expiry, the client's conservative local deadline, {@link
 *       dev.fencepost.lock.LockHandle#ensureHeld()} and {@link dev.fencepost.lock.LockInfo}. They
 *       let a worker give up early and let a dead worker's lock be taken over, but a paused process
 *       can pass any such check and then act after its lease is gone. They narrow the dangerous
 *       window; only the token closes it (docs/lock-starter.md, liveness and safety).
 * </ul>
 */
package dev.fencepost.lock;
