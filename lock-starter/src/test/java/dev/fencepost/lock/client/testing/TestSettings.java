package dev.fencepost.lock.client.testing;

import dev.fencepost.lock.client.impl.LockClientSettings;
import java.net.URI;
import java.time.Duration;

/** Client settings with short TTLs for tests, tweakable one field at a time. */
public final class TestSettings {

  private String baseUrl;
  private String owner = "starter-test";
  private Duration ttl = Duration.ofSeconds(2);
  private double safetyMargin = 0.3;
  private Duration wait = Duration.ZERO;
  private Duration connectTimeout = Duration.ofMillis(300);
  private Duration readTimeout = Duration.ofMillis(400);
  private int maxAttempts = 4;
  private Duration baseDelay = Duration.ofMillis(50);
  private Duration maxDelay = Duration.ofMillis(400);
  private Duration maxElapsed = Duration.ofSeconds(3);

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

  public LockClientSettings build() {
    return new LockClientSettings(
        URI.create(baseUrl),
        owner,
        ttl,
        safetyMargin,
        wait,
        connectTimeout,
        readTimeout,
        new LockClientSettings.Retry(maxAttempts, baseDelay, maxDelay, maxElapsed));
  }
}
