/**
 * The lock backend SPI, for backend implementers. Users of the lock never see these types: they
 * talk HTTP to the lock server through the starter.
 */
package dev.fencepost.lockserver.backend;
