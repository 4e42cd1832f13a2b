package dev.fencepost.lockserver.backend;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockInfo;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.RevokeResult;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lock.SessionInfo;
import java.time.Duration;

/**
 * A real backend with one operation replaced: the base of the negative controls, which swap in a
 * deliberately broken acquire and show that the history checks catch it (NFR-07).
 */
public abstract class AcquireOverridingBackend implements LockBackend {

  protected final LockBackend real;

  protected AcquireOverridingBackend(LockBackend real) {
    this.real = real;
  }

  @Override
  public abstract LockGrant acquire(LockKey key, SessionId sessionId, Duration wait);

  @Override
  public String name() {
    return real.name() + "-broken";
  }

  @Override
  public SessionInfo createSession(String owner, String principal, Duration ttl) {
    return real.createSession(owner, principal, ttl);
  }

  @Override
  public java.util.Optional<String> sessionPrincipal(SessionId sessionId) {
    return real.sessionPrincipal(sessionId);
  }

  @Override
  public SessionInfo keepAlive(SessionId sessionId) {
    return real.keepAlive(sessionId);
  }

  @Override
  public void closeSession(SessionId sessionId) {
    real.closeSession(sessionId);
  }

  @Override
  public LockGrant renew(LockKey key, SessionId sessionId, FencingToken token) {
    return real.renew(key, sessionId, token);
  }

  @Override
  public void release(LockKey key, SessionId sessionId, FencingToken token) {
    real.release(key, sessionId, token);
  }

  @Override
  public LockInfo inspect(LockKey key) {
    return real.inspect(key);
  }

  @Override
  public RevokeResult revoke(LockKey key, String operator, String reason) {
    return real.revoke(key, operator, reason);
  }

  @Override
  public BackendStats stats() {
    return real.stats();
  }
}
