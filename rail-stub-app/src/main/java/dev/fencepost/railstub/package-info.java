/**
 * The rail stub: the external payment rail that the project cannot change.
 *
 * <p>It is non-idempotent on purpose (FR-21): it has no idempotency key and no duplicate detection,
 * so every accepted {@code POST /rail/payments} moves money again, even with a client reference it
 * has already seen. That is what makes the rail proxy's guards necessary (FR-17, FR-18, INV-02).
 *
 * <p>It injects the behaviours that make payouts hard (UC-05): declines, slowness, timeouts before
 * and after the money moved, server errors after the money moved, and dropped connections, each at
 * a rate or forced for one client reference. Its lookup is eventually consistent and its
 * admin movements view is the ground truth the tests and the experiments compare against.
 */
package dev.fencepost.railstub;
