package dev.fencepost.lock.client;

import dev.fencepost.lock.client.impl.DefaultLockClient;
import dev.fencepost.lock.client.impl.DefaultLockTemplate;
import dev.fencepost.lock.client.impl.LockClientSettings;
import dev.fencepost.lock.client.impl.MicrometerLockClientMetrics;
import dev.fencepost.lock.client.impl.Owners;
import dev.fencepost.security.BearerTokenSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The lock client without Spring: a builder for a {@link StartableLockClient}, and a {@link
 * LockTemplate} over any {@link LockClient}. Launchers, benchmarks and tools use these instead of
 * the starter's implementation classes.
 *
 * <pre>{@code
 * try (StartableLockClient client =
 *     LockClients.builder(URI.create("http://127.0.0.1:8081")).owner("local-reconciler").build()) {
 *   client.start();
 *   client.template().execute("payout:" + accountId, lock -> work(lock.token()));
 * }
 * }</pre>
 *
 * <p>Every setting defaults to the starter's default for the same property ({@code
 * fencepost.lock.client.*}, docs/lock-starter.md): a 15 s session TTL with its heartbeat every 5 s
 * and a 0.3 safety margin, a 2 s default wait, 1 s connect and 2 s read timeouts, and up to
 * 4 acquire attempts within 5 s (FR-28). Metrics are recorded nowhere unless a {@link
 * MeterRegistry} is given. The same validation applies as for the properties: a value that would
 * make the local deadline meaningless is refused with the reason.
 */
public final class LockClients {

  private LockClients() {}

  /**
   * A builder for a client of the lock server at {@code baseUrl}.
   *
   * @param baseUrl the lock server, {@code http} or {@code https}, e.g. {@code
   *     http://lock-server:8081}
   */
  public static Builder builder(URI baseUrl) {
    return new Builder(baseUrl);
  }

  /** A {@link LockTemplate} over {@code client}, waiting up to {@code defaultWait} by default. */
  public static LockTemplate template(LockClient client, Duration defaultWait) {
    return new DefaultLockTemplate(
        Objects.requireNonNull(client, "client"), nonNegative("defaultWait", defaultWait));
  }

  /** Settings of one client; {@link #build()} validates them together. Not thread-safe. */
  public static final class Builder {

    private final URI baseUrl;
    private String owner;
    private Duration sessionTtl = Duration.ofSeconds(15);
    private double safetyMargin = 0.3;
    private Duration defaultWait = Duration.ofSeconds(2);
    private Duration connectTimeout = Duration.ofSeconds(1);
    private Duration readTimeout = Duration.ofSeconds(2);
    private LockClientSettings.Retry retry =
        new LockClientSettings.Retry(
            4, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(5));
    private MeterRegistry meterRegistry;
    private BearerTokenSource tokens;
    private boolean keepAliveStream = true;
    private final List<LockLostListener> lockLostListeners = new ArrayList<>();

    private Builder(URI baseUrl) {
      Objects.requireNonNull(baseUrl, "baseUrl");
      String scheme = baseUrl.getScheme();
      if (!("http".equals(scheme) || "https".equals(scheme)) || baseUrl.getHost() == null) {
        throw new IllegalArgumentException(
            "baseUrl must be an absolute http(s) URL such as http://lock-server:8081, got "
                + baseUrl);
      }
      this.baseUrl = baseUrl;
    }

    /**
     * The identity this client declares to the lock server, for audit and inspection (1..200
     * characters). Default: {@code fencepost-client@host:pid}.
     */
    public Builder owner(String owner) {
      if (owner == null || owner.isBlank() || owner.length() > 200) {
        throw new IllegalArgumentException(
            "owner must be 1..200 non-blank characters, got " + quote(owner));
      }
      this.owner = owner;
      return this;
    }

    /**
     * How long the server keeps the session and its locks without a heartbeat; the heartbeat runs
     * every third of it. Default 15 s.
     */
    public Builder sessionTtl(Duration sessionTtl) {
      this.sessionTtl = positive("sessionTtl", sessionTtl);
      return this;
    }

    /**
     * The fraction of the session TTL by which the local deadline gives up before the server's
     * expiry, within [0.1, 0.6]. Default 0.3.
     */
    public Builder safetyMargin(double safetyMargin) {
      if (!(safetyMargin >= LockClientSettings.MIN_SAFETY_MARGIN
          && safetyMargin <= LockClientSettings.MAX_SAFETY_MARGIN)) {
        throw new IllegalArgumentException(
            "safetyMargin must be within ["
                + LockClientSettings.MIN_SAFETY_MARGIN
                + ", "
                + LockClientSettings.MAX_SAFETY_MARGIN
                + "], got "
                + safetyMargin);
      }
      this.safetyMargin = safetyMargin;
      return this;
    }

    /**
     * How long the lock server may wait for a held key when a call names no wait, and the default
     * wait of {@link StartableLockClient#template()}. Zero answers "held" at once. Default 2 s.
     */
    public Builder defaultWait(Duration defaultWait) {
      this.defaultWait = nonNegative("defaultWait", defaultWait);
      return this;
    }

    /** TCP connect timeout of every request; shorter than a third of the TTL. Default 1 s. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = positive("connectTimeout", connectTimeout);
      return this;
    }

    /**
     * Response timeout of every request (an acquire adds its wait); shorter than a third of the
     * TTL. Default 2 s.
     */
    public Builder readTimeout(Duration readTimeout) {
      this.readTimeout = positive("readTimeout", readTimeout);
      return this;
    }

    /**
     * Whether heartbeats go over the session's keepalive stream, one WebSocket held open (ADR
     * 0224), falling back to a request whenever it cannot serve one. Default true.
     */
    public Builder keepAliveStream(boolean keepAliveStream) {
      this.keepAliveStream = keepAliveStream;
      return this;
    }

    /**
     * The acquire retry budget when the lock server cannot be reached (FR-28): at most {@code
     * maxAttempts} attempts in all (1..20), none started after {@code maxElapsed}, with full-jitter
     * backoff whose cap starts at {@code baseDelay} and doubles up to {@code maxDelay}. Default 4
     * attempts, 100 ms, 1 s, 5 s.
     */
    public Builder retry(
        int maxAttempts, Duration baseDelay, Duration maxDelay, Duration maxElapsed) {
      if (maxAttempts < 1 || maxAttempts > 20) {
        throw new IllegalArgumentException("retry maxAttempts must be 1..20, got " + maxAttempts);
      }
      positive("retry baseDelay", baseDelay);
      positive("retry maxDelay", maxDelay);
      positive("retry maxElapsed", maxElapsed);
      if (maxDelay.compareTo(baseDelay) < 0) {
        throw new IllegalArgumentException(
            "retry maxDelay (" + maxDelay + ") must not be below baseDelay (" + baseDelay + ")");
      }
      this.retry = new LockClientSettings.Retry(maxAttempts, baseDelay, maxDelay, maxElapsed);
      return this;
    }

    /**
     * Records the client's metrics ({@code fencepost.lock.client.*}, docs/lock-starter.md) in
     * {@code meterRegistry}. Without one nothing is recorded.
     */
    /**
     * Presents a bearer token from {@code tokens} on every request; a secured lock server answers
     * 401 without one (docs/security.md). {@code BearerTokenSources} builds one from client
     * credentials or a token file.
     */
    public Builder bearerTokens(BearerTokenSource tokens) {
      this.tokens = Objects.requireNonNull(tokens, "tokens");
      return this;
    }

    public Builder meterRegistry(MeterRegistry meterRegistry) {
      this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
      return this;
    }

    /** Told once about every lock of this client that is lost; in the order added. */
    public Builder lockLostListener(LockLostListener listener) {
      lockLostListeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * The client, not started yet.
     *
     * @throws IllegalArgumentException when the settings do not fit together, e.g. a timeout not
     *     shorter than the heartbeat interval (a third of the TTL)
     */
    public StartableLockClient build() {
      LockClientMetrics metrics =
          meterRegistry == null ? LockClientMetrics.NOOP : Micrometer.metrics(meterRegistry);
      return new DefaultLockClient(settings(), metrics, lockLostListeners);
    }

    LockClientSettings settings() {
      return new LockClientSettings(
          baseUrl,
          owner == null ? Owners.defaultOwner("fencepost-client") : owner,
          sessionTtl,
          safetyMargin,
          defaultWait,
          connectTimeout,
          readTimeout,
          retry,
          tokens,
          keepAliveStream);
    }
  }

  /** Kept apart so that Micrometer is needed only by a builder that was given a registry. */
  private static final class Micrometer {
    static LockClientMetrics metrics(MeterRegistry registry) {
      return new MicrometerLockClientMetrics(registry);
    }
  }

  private static Duration positive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isZero() || value.isNegative()) {
      throw new IllegalArgumentException(name + " must be positive, got " + value);
    }
    return value;
  }

  private static Duration nonNegative(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, got " + value);
    }
    return value;
  }

  private static String quote(String value) {
    return value == null ? "null" : "'" + value + "'";
  }
}
