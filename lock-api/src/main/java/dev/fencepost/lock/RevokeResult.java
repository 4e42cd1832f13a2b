package dev.fencepost.lock;

/**
 * The outcome of an operator's force-revoke (FR-08, UC-06). After it, every token the service
 * issues for the key is greater than {@code revokedToken}, so the deposed holder is fenced out at
 * both guards by construction.
 *
 * @param key the lock
 * @param revokedToken the token of the grant that was revoked, or null if the key was free
 * @param revokedOwner the owner of the revoked grant, or null if the key was free
 */
public record RevokeResult(LockKey key, FencingToken revokedToken, String revokedOwner) {}
