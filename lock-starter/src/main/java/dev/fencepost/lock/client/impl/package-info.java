/**
 * The client's implementation: HTTP transport to the lock server (docs/lock-server.md), the session
 * and its heartbeat, the conservative deadline and watchdog (FR-11, FR-12), bounded jittered retry
 * (FR-28), and the Micrometer and health adapters. Not an API: application code uses the types in
 * {@code dev.fencepost.lock.client}.
 */
package dev.fencepost.lock.client.impl;
