/**
 * Signed grants (ADRs 0135 and 0136): the lock server signs every grant it hands out and publishes
 * the public keys, so that a guard can tell a token the lock server issued from a made-up one.
 */
package dev.fencepost.lockserver.grant;
