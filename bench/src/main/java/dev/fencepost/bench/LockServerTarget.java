package dev.fencepost.bench;

import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.client.HeldLock;
import dev.fencepost.lock.client.LockClients;
import dev.fencepost.lock.client.StartableLockClient;
import java.net.URI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * E3 and P2: our lock server through the starter's client, built without a Spring context by {@link
 * LockClients}. Each worker is one client with its own session, as one worker process would be.
 * Renew and inspect are not calls of the starter's API (it renews on its heartbeat thread and has
 * no inspect), so they go to the server's HTTP API the way the starter's transport sends
 * (kept-alive HTTP/1.1, TCP_NODELAY; {@link PlainHttp}).
 */
public final class LockServerTarget implements LockTarget {

  private final String id;
  private final String baseUrl;
  private final Store store;

  public LockServerTarget(String id, String baseUrl, Store store) {
    this.id = id;
    this.baseUrl = baseUrl;
    this.store = store;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String title() {
    return "Fencepost lock server on "
        + (store == Store.ETCD ? "etcd" : "PostgreSQL")
        + " through lock-spring-boot-starter";
  }

  @Override
  public Store store() {
    return store;
  }

  @Override
  public Set<Op> ops() {
    return EnumSet.of(Op.ACQUIRE, Op.PAIR, Op.TRY_HELD, Op.HANDOFF, Op.RENEW, Op.INSPECT);
  }

  @Override
  public String why(Op op) {
    return switch (op) {
      case RENEW -> "POST /v1/locks/{key}/renew over HTTP (the starter renews on its heartbeat)";
      case INSPECT -> "GET /v1/locks/{key} over HTTP (not in the starter's API)";
      case HANDOFF -> "acquire with waitMillis: the server waits (NOTIFY / etcd watch)";
      default -> "";
    };
  }

  @Override
  public Client client(int index) {
    StartableLockClient lockClient =
        LockClients.builder(URI.create(baseUrl))
            .owner("bench-" + id + "-" + index)
            .bearerTokens(BenchIdentity.worker())
            .sessionTtl(Duration.ofSeconds(30))
            .safetyMargin(0.3)
            .defaultWait(Duration.ZERO)
            .connectTimeout(Duration.ofSeconds(2))
            .readTimeout(Duration.ofSeconds(8))
            .retry(2, Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofSeconds(2))
            .build();
    lockClient.start();
    PlainHttp http = new PlainHttp(baseUrl);
    return new Client() {
      @Override
      public Object acquire(String key) {
        Optional<HeldLock> lock = lockClient.tryAcquire(LockKey.of(key), Duration.ZERO);
        return lock.orElse(null);
      }

      @Override
      public Object acquireWaiting(String key, Duration max) {
        return lockClient.acquire(LockKey.of(key), max);
      }

      @Override
      public void release(String key, Object handle) {
        ((HeldLock) handle).close();
      }

      @Override
      public Object renew(String key, Object handle) throws Exception {
        HeldLock lock = (HeldLock) handle;
        String body =
            "{\"sessionId\":\""
                + lock.grant().sessionId().value()
                + "\",\"token\":"
                + lock.token().value()
                + "}";
        int status = http.send("POST", "/v1/locks/" + key + "/renew", body);
        if (status != 200) {
          throw new IllegalStateException("renew answered " + status);
        }
        return handle;
      }

      @Override
      public void inspect(String key) throws Exception {
        int status = http.send("GET", "/v1/locks/" + key, null);
        if (status != 200) {
          throw new IllegalStateException("inspect answered " + status);
        }
      }

      @Override
      public void close() {
        http.close();
        lockClient.close();
      }
    };
  }
}
