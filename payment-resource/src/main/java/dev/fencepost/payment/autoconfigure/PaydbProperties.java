package dev.fencepost.payment.autoconfigure;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * paydb's connection pool, {@code fencepost.paydb.*}. Nothing is wired unless {@link #getUrl() url}
 * is set. paydb is never an application's {@code spring.datasource}: in the jobs that is batchdb.
 * How long anything on paydb may take (waiting for a connection included) is not set here but by
 * {@code fencepost.db.timeouts.*}, the same for every pool of the application (db module, ADR
 * 0155).
 */
@ConfigurationProperties("fencepost.paydb")
public class PaydbProperties {

  /** JDBC URL of paydb, e.g. {@code jdbc:postgresql://localhost:5432/paydb}. Required. */
  private String url;

  /** paydb user; empty leaves it to the driver. */
  private String username;

  /** paydb password; empty leaves it to the driver. Supply it from a secret, not from a file. */
  private String password;

  /**
   * Connections to paydb. Each resource call holds one for its single transaction only, so a small
   * pool serves many callers; the payout job raises it to fit its payout threads.
   */
  private int maximumPoolSize = 10;

  /** How long the pool waits for a connection's liveness check before discarding it. */
  private Duration validationTimeout = Duration.ofSeconds(5);

  /** How long an unused connection above the pool's minimum stays open. */
  private Duration idleTimeout = Duration.ofMinutes(10);

  public String getUrl() {
    return url;
  }

  public void setUrl(String url) {
    this.url = url;
  }

  public String getUsername() {
    return username;
  }

  public void setUsername(String username) {
    this.username = username;
  }

  public String getPassword() {
    return password;
  }

  public void setPassword(String password) {
    this.password = password;
  }

  public int getMaximumPoolSize() {
    return maximumPoolSize;
  }

  public void setMaximumPoolSize(int maximumPoolSize) {
    this.maximumPoolSize = maximumPoolSize;
  }

  public Duration getValidationTimeout() {
    return validationTimeout;
  }

  public void setValidationTimeout(Duration validationTimeout) {
    this.validationTimeout = validationTimeout;
  }

  public Duration getIdleTimeout() {
    return idleTimeout;
  }

  public void setIdleTimeout(Duration idleTimeout) {
    this.idleTimeout = idleTimeout;
  }
}
