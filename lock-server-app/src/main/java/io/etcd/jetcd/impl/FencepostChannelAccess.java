package io.etcd.jetcd.impl;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.api.LeaseGrpc;

/**
 * The one place Fencepost reaches inside jetcd (ADR 0228). jetcd 0.8.6 sends a single lease
 * keepalive only by opening a keepalive stream for it ({@code Lease.keepAliveOnce}), and its client
 * hides the channel that a stream of our own would need. This class lives in jetcd's implementation
 * package to take a stub on that channel, with everything jetcd puts on its own calls (credentials,
 * wait-for-ready, the client's interceptors), and to drop a token etcd refused.
 *
 * <p>It depends on package-private parts of jetcd: an upgrade that moves them fails the build here.
 * Every keepalive in the tests goes through it, on a plain etcd ({@code LeaseKeepAlivesTest}) and a
 * secured one (the secured contract suites).
 */
public final class FencepostChannelAccess {

  private FencepostChannelAccess() {}

  /** A stub for etcd's lease service on {@code client}'s own channel, as jetcd makes its own. */
  public static LeaseGrpc.LeaseStub leaseStub(Client client) {
    return manager(client).newStub(LeaseGrpc::newStub);
  }

  /**
   * Forgets {@code client}'s etcd token, so that its next call authenticates again: what jetcd does
   * on its own calls when etcd says the token is invalid or older than its auth store.
   */
  public static void forgetToken(Client client) {
    manager(client).authCredential().refresh();
  }

  private static ClientConnectionManager manager(Client client) {
    if (!(client.getLeaseClient() instanceof Impl lease)) {
      throw new IllegalArgumentException(
          "not a jetcd client built by Client.builder(): " + client.getClass().getName());
    }
    return lease.connectionManager();
  }
}
