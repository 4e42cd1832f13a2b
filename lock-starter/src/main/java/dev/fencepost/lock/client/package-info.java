/**
 * The Fencepost lock client: what application code uses to run work under a fenced lock.
 *
 * <p>Start with {@link dev.fencepost.lock.client.LockTemplate}: it acquires the lock, hands the
 * work a {@link dev.fencepost.lock.client.HeldLock} whose {@code token()} the work passes
 * explicitly to every guarded mutation, and releases the lock afterwards. {@link
 * dev.fencepost.lock.client.LockClient} is the lower-level API underneath it.
 *
 * <p>Which mechanism gives which property (docs/lock-starter.md, liveness and safety):
 *
 * <ul>
 *   <li><b>Safety</b> is the fencing token, checked by the guards (INV-05). Nothing in this package
 *       can provide it: a paused process passes every local check and then acts late.
 *   <li><b>Liveness</b> is everything else here: the session heartbeat, the conservative local
 *       deadline (FR-11), the lock-lost signal (FR-12) and {@link
 *       dev.fencepost.lock.LockHandle#ensureHeld()} (FR-13). They make a worker that lost its lease
 *       stop early, before the guards have to refuse it.
 * </ul>
 *
 * <p>Failure to acquire is always an exception or an empty result, never a grant-less run of the
 * work: there is no fail-open mode (FR-27, UC-08).
 */
package dev.fencepost.lock.client;
