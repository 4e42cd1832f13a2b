package dev.fencepost.lock.client.testing;

import dev.fencepost.lock.client.LockClientMetrics;
import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lock.client.impl.LockClientSettings;
import dev.fencepost.security.BearerTokenSource;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * Client settings with short TTLs for tests (4 s: a heartbeat every 1.33 s, a local deadline 2.8 s
 * after the last confirmation), tweakable one field at a time. Timeouts leave room for a loaded
 * two-core machine.
 */
public final class TestSettings {

  private String baseUrl;
  private String owner = "starter-test";
  private Duration ttl = Duration.ofSeconds(4);
  private double safetyMargin = 0.3;
  private Duration wait = Duration.ZERO;
  private Duration connectTimeout = Duration.ofMillis(500);
  private Duration readTimeout = Duration.ofMillis(1000);
  private int maxAttempts = 4;
  private Duration baseDelay = Duration.ofMillis(50);
  private Duration maxDelay = Duration.ofMillis(400);
  private Duration maxElapsed = Duration.ofSeconds(3);
  private BearerTokenSource tokens = TestIdentity.worker();
  private boolean keepAliveStream = true;

  private TestSettings(String baseUrl) {
    this.baseUrl = baseUrl;
  }

  public static TestSettings against(String baseUrl) {
    return new TestSettings(baseUrl);
  }

  public TestSettings owner(String owner) {
    this.owner = owner;
    return this;
  }

  public TestSettings ttl(Duration ttl) {
    this.ttl = ttl;
    return this;
  }

  public TestSettings wait(Duration wait) {
    this.wait = wait;
    return this;
  }

  public TestSettings timeouts(Duration connect, Duration read) {
    this.connectTimeout = connect;
    this.readTimeout = read;
    return this;
  }

  public TestSettings retry(int maxAttempts, Duration baseDelay, Duration maxDelay, Duration max) {
    this.maxAttempts = maxAttempts;
    this.baseDelay = baseDelay;
    this.maxDelay = maxDelay;
    this.maxElapsed = max;
    return this;
  }

  /** Tokens from {@code tokens} instead of the test worker's. */
  public TestSettings tokens(BearerTokenSource tokens) {
    this.tokens = tokens;
    return this;
  }

  /** Heartbeats over the keepalive stream (the default) or as requests only. */
  public TestSettings keepAliveStream(boolean keepAliveStream) {
    this.keepAliveStream = keepAliveStream;
    return this;
  }

  public LockClientSettings build() {
    return new LockClientSettings(
        URI.create(baseUrl),
        owner,
        ttl,
        safetyMargin,
        wait,
        connectTimeout,
        readTimeout,
        new LockClientSettings.Retry(maxAttempts, baseDelay, maxDelay, maxElapsed),
        tokens,
        keepAliveStream);
  }

  /** A started client with these settings, recording nothing, with no lock-lost listener. */
  public DefaultLockClient startClient() {
    return startClient(LockClientMetrics.NOOP);
  }

  /** A started client with these settings, recording into {@code metrics}. */
  public DefaultLockClient startClient(LockClientMetrics metrics) {
    DefaultLockClient client = new DefaultLockClient(build(), metrics, List.of());
    client.start();
    return client;
  }
}
