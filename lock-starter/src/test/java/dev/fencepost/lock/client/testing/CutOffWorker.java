package dev.fencepost.lock.client.testing;

import dev.fencepost.lock.client.LockedWork;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Two workers' clients of one real lock server, after the same fresh {@link #key()}: {@link
 * #worker()} reaches the server only through a {@link StallableTcpProxy}, so a test can cut it off
 * (a dead network path, or the whole process frozen), and {@link #rival()} talks to it directly,
 * ready to take over. Both have short timeouts, so a call that hangs behind the stalled path gives
 * up soon. Closing resumes the path first, then closes both clients and the proxy.
 */
public final class CutOffWorker implements AutoCloseable {

  private final Closer closer = new Closer();
  private final String key = "payout:cut-off-" + UUID.randomUUID();
  private final StallableTcpProxy path;
  private final DefaultLockClient rival;
  private final DefaultLockClient worker;

  /**
   * @param ttl the lease both clients ask for
   * @param workerOwner the owner name of the client behind the proxy
   * @param rivalOwner the owner name of the client that talks to the server directly
   */
  public CutOffWorker(RealLockServer server, Duration ttl, String workerOwner, String rivalOwner) {
    path = closer.register(new StallableTcpProxy(server.port()));
    rival = closer.register(client(server.baseUrl(), rivalOwner, ttl));
    worker = closer.register(client(path.baseUrl(), workerOwner, ttl));
    closer.register(path::resume);
  }

  private static DefaultLockClient client(String baseUrl, String owner, Duration ttl) {
    return TestSettings.against(baseUrl)
        .owner(owner)
        .ttl(ttl)
        .timeouts(Duration.ofMillis(500), Duration.ofMillis(800))
        .startClient();
  }

  /** The key both workers are after. */
  public String key() {
    return key;
  }

  /** Runs {@code work} as the worker does: under the key, on a thread of its own. */
  public CompletableFuture<Void> workerRuns(LockedWork<Void> work) {
    return Work.inBackground(worker, key, work);
  }

  /** The client whose traffic passes the proxy. */
  public DefaultLockClient worker() {
    return worker;
  }

  /** The client that talks to the server directly. */
  public DefaultLockClient rival() {
    return rival;
  }

  /** From now on none of the worker's bytes reach the server, and no answer reaches the worker. */
  public void stall() {
    path.stall();
  }

  /** The worker's traffic flows again, including what was held back. */
  public void resume() {
    path.resume();
  }

  @Override
  public void close() throws Exception {
    closer.close();
  }
}
