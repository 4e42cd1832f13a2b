/**
 * Spring Boot auto-configuration of the lock client. Three auto-configurations, each backing off on
 * its own condition: the core ({@link
 * dev.fencepost.lock.client.autoconfigure.LockClientAutoConfiguration}), Micrometer metrics and the
 * health indicator. None is active unless {@code fencepost.lock.client.base-url} is set and {@code
 * fencepost.lock.client.enabled} is not false, so the starter stays inert in any context that does
 * not ask for a lock client (the lock server's own, for one).
 */
package dev.fencepost.lock.client.autoconfigure;
