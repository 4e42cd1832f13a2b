package dev.fencepost.lock.client.autoconfigure;

import dev.fencepost.lock.client.impl.LockClientSettings;
import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the Fencepost lock client, under {@code fencepost.lock.client}.
 *
 * <p>Deliberately absent: any switch that would run work without a grant when the lock service is
 * unreachable. Failing closed is not configurable (FR-27, UC-08).
 */
@ConfigurationProperties("fencepost.lock.client")
public class LockClientProperties {

  /**
   * Whether to configure the lock client. Even when true, nothing is configured until base-url is
   * set.
   */
  private boolean enabled = true;

  /**
   * Base URL of the lock server, for example http://lock-server:8081. Setting it is what activates
   * the client.
   */
  private URI baseUrl;

  /**
   * Identity this client declares to the lock server, for audit and inspection (at most 200
   * characters). Defaults to spring.application.name@host:pid.
   */
  private String owner;

  /**
   * Session TTL asked of the lock server: how long the server keeps the session and its locks
   * without a heartbeat. The heartbeat runs every ttl/3 (A-04: 15s).
   */
  private Duration ttl = Duration.ofSeconds(15);

  /**
   * Fraction of the TTL by which the client's local deadline gives up before the server's expiry,
   * between 0.1 and 0.6 (A-04: 0.3). With ttl 15s the deadline is 10.5s after the send time of the
   * last confirming heartbeat.
   */
  private double safetyMargin = 0.3;

  /**
   * Default time the lock server may wait for a held key to become free before answering "held".
   */
  private Duration wait = Duration.ofSeconds(2);

  /** TCP connect timeout of every request to the lock server; must be shorter than ttl/3. */
  private Duration connectTimeout = Duration.ofSeconds(1);

  /**
   * Response timeout of every request to the lock server; must be shorter than ttl/3. An acquire
   * adds its wait to it.
   */
  private Duration readTimeout = Duration.ofSeconds(2);

  /**
   * Whether heartbeats go over the session's keepalive stream, one WebSocket held open, instead of
   * one HTTP request each (ADR 0224). Whenever the stream cannot serve a heartbeat the client sends
   * it as a request, so turn this off only where something between client and server cannot carry a
   * WebSocket. Default true.
   */
  private boolean keepAliveStream = true;

  /** Acquire retries when the lock server cannot be reached (FR-28). */
  private final Retry retry = new Retry();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public URI getBaseUrl() {
    return baseUrl;
  }

  public void setBaseUrl(URI baseUrl) {
    this.baseUrl = baseUrl;
  }

  public String getOwner() {
    return owner;
  }

  public void setOwner(String owner) {
    this.owner = owner;
  }

  public Duration getTtl() {
    return ttl;
  }

  public void setTtl(Duration ttl) {
    this.ttl = ttl;
  }

  public double getSafetyMargin() {
    return safetyMargin;
  }

  public void setSafetyMargin(double safetyMargin) {
    this.safetyMargin = safetyMargin;
  }

  public Duration getWait() {
    return wait;
  }

  public void setWait(Duration wait) {
    this.wait = wait;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public Duration getReadTimeout() {
    return readTimeout;
  }

  public void setReadTimeout(Duration readTimeout) {
    this.readTimeout = readTimeout;
  }

  public boolean isKeepAliveStream() {
    return keepAliveStream;
  }

  public void setKeepAliveStream(boolean keepAliveStream) {
    this.keepAliveStream = keepAliveStream;
  }

  public Retry getRetry() {
    return retry;
  }

  /** The validated settings the client runs on; {@code defaultOwner} when owner is not set. */
  public LockClientSettings toSettings(String defaultOwner) {
    return new LockClientSettings(
        baseUrl,
        owner == null || owner.isBlank() ? defaultOwner : owner,
        ttl,
        safetyMargin,
        wait,
        connectTimeout,
        readTimeout,
        new LockClientSettings.Retry(
            retry.maxAttempts, retry.baseDelay, retry.maxDelay, retry.maxElapsed),
        // No token source here: the auto-configuration adds the context's (withTokens).
        null,
        keepAliveStream);
  }

  /** Bounded, jittered acquire retries (FR-28). */
  public static class Retry {

    /** Acquire attempts in all, the first included, when the lock server cannot be reached. */
    private int maxAttempts = 4;

    /**
     * Backoff cap before the second attempt; it doubles per attempt up to max-delay, and each
     * actual delay is uniformly random below the cap (full jitter).
     */
    private Duration baseDelay = Duration.ofMillis(100);

    /** Largest backoff cap. */
    private Duration maxDelay = Duration.ofSeconds(1);

    /** Total time after which no new acquire attempt starts; the caller then fails closed. */
    private Duration maxElapsed = Duration.ofSeconds(5);

    public int getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    public Duration getBaseDelay() {
      return baseDelay;
    }

    public void setBaseDelay(Duration baseDelay) {
      this.baseDelay = baseDelay;
    }

    public Duration getMaxDelay() {
      return maxDelay;
    }

    public void setMaxDelay(Duration maxDelay) {
      this.maxDelay = maxDelay;
    }

    public Duration getMaxElapsed() {
      return maxElapsed;
    }

    public void setMaxElapsed(Duration maxElapsed) {
      this.maxElapsed = maxElapsed;
    }
  }
}
