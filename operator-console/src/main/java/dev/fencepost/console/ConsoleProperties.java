package dev.fencepost.console;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The operator console's settings, under {@code fencepost.console} (docs/console.md). Every URL is
 * a service's own; the console has no credential for any of them: it calls each with the signed-in
 * person's access token (ADR 0185). The database connections read only (ADR 0186).
 */
@ConfigurationProperties("fencepost.console")
public class ConsoleProperties {

  /**
   * The identity issuer's base URL, the {@code iss} of its tokens: the console sends a person there
   * to sign in, and checks the tokens it gets back against its JWK set.
   */
  private String issuerUrl = "https://127.0.0.1:8084";

  /** The console's client id at the issuer: a public client, authorization code with PKCE. */
  private String clientId = "operator-console";

  /** The audience a token must name for the services to take it (and so for the console). */
  private String audience = "fencepost";

  /** The lock server's API: lock inspection and break-glass revoke. */
  private String lockServerUrl = "https://127.0.0.1:8081";

  /** The lock server's management port: its health. */
  private String lockServerManagementUrl = "https://127.0.0.1:9081";

  /** The rail proxy's management port: the second guard's health. */
  private String railProxyManagementUrl = "https://127.0.0.1:9082";

  /** The rail (stub): a payout's movement on the rail, read with the operator's token. */
  private String railStubUrl = "https://127.0.0.1:8083";

  /** payout-job's management port: {@code batchjobs/payoutJob} (list and launch). */
  private String payoutJobManagementUrl = "https://127.0.0.1:9085";

  /**
   * reconciliation-job's management port: {@code batchjobs/reconciliationJob} and {@code payoutops}
   * (cancel, abandon).
   */
  private String reconciliationManagementUrl = "https://127.0.0.1:9086";

  /**
   * Prometheus's base URL, for the alerts firing ({@code /api/v1/alerts}). Optional: without it the
   * overview says alerts are not configured.
   */
  private String prometheusUrl;

  /** How long a payout may stay RAIL_AMBIGUOUS before the overview counts it past its SLA. */
  private Duration resolutionSla = Duration.ofHours(4);

  /** How far back the jobs page charts payouts posted per minute. */
  private Duration chartWindow = Duration.ofHours(3);

  /** Connecting to a service. */
  private Duration connectTimeout = Duration.ofSeconds(2);

  /** Waiting for a service's answer; a page then says the service did not answer. */
  private Duration readTimeout = Duration.ofSeconds(10);

  /**
   * How long before its expiry an access token is no longer used: the person is sent through the
   * issuer again (silently while their session there lasts) rather than risk a 401 half-way.
   */
  private Duration tokenExpiryMargin = Duration.ofSeconds(20);

  /** Rows one list page shows at most (payouts, findings, held locks). */
  private int pageSize = 100;

  /** paydb: payouts, their audit trail, reconciliation runs and findings. Required. */
  private Database paydb = new Database();

  /** proxydb: the proxy's submission record of a payout. Optional. */
  private Database proxydb = new Database();

  /**
   * lockdb: the held locks and the revoke audit (PostgreSQL backend only; with etcd the audit is in
   * etcd and the console does not read it). Optional.
   */
  private Database lockdb = new Database();

  /** One read-only database connection (ADR 0186). */
  public static class Database {

    /** JDBC URL; empty: not read. */
    private String url;

    /** A role that may only read (locally a member of {@code pg_read_all_data}). */
    private String username;

    /** Its password, from the environment or a secret at run time, never from a shipped file. */
    private String password;

    /** Connections at most. */
    private int maximumPoolSize = 2;

    public boolean configured() {
      return url != null && !url.isBlank();
    }

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
  }

  public String getIssuerUrl() {
    return issuerUrl;
  }

  public void setIssuerUrl(String issuerUrl) {
    this.issuerUrl = issuerUrl;
  }

  public String getClientId() {
    return clientId;
  }

  public void setClientId(String clientId) {
    this.clientId = clientId;
  }

  public String getAudience() {
    return audience;
  }

  public void setAudience(String audience) {
    this.audience = audience;
  }

  public String getLockServerUrl() {
    return lockServerUrl;
  }

  public void setLockServerUrl(String lockServerUrl) {
    this.lockServerUrl = lockServerUrl;
  }

  public String getLockServerManagementUrl() {
    return lockServerManagementUrl;
  }

  public void setLockServerManagementUrl(String lockServerManagementUrl) {
    this.lockServerManagementUrl = lockServerManagementUrl;
  }

  public String getRailProxyManagementUrl() {
    return railProxyManagementUrl;
  }

  public void setRailProxyManagementUrl(String railProxyManagementUrl) {
    this.railProxyManagementUrl = railProxyManagementUrl;
  }

  public String getRailStubUrl() {
    return railStubUrl;
  }

  public void setRailStubUrl(String railStubUrl) {
    this.railStubUrl = railStubUrl;
  }

  public String getPayoutJobManagementUrl() {
    return payoutJobManagementUrl;
  }

  public void setPayoutJobManagementUrl(String payoutJobManagementUrl) {
    this.payoutJobManagementUrl = payoutJobManagementUrl;
  }

  public String getReconciliationManagementUrl() {
    return reconciliationManagementUrl;
  }

  public void setReconciliationManagementUrl(String reconciliationManagementUrl) {
    this.reconciliationManagementUrl = reconciliationManagementUrl;
  }

  public String getPrometheusUrl() {
    return prometheusUrl;
  }

  public void setPrometheusUrl(String prometheusUrl) {
    this.prometheusUrl = prometheusUrl;
  }

  public Duration getResolutionSla() {
    return resolutionSla;
  }

  public void setResolutionSla(Duration resolutionSla) {
    this.resolutionSla = resolutionSla;
  }

  public Duration getChartWindow() {
    return chartWindow;
  }

  public void setChartWindow(Duration chartWindow) {
    this.chartWindow = chartWindow;
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

  public Duration getTokenExpiryMargin() {
    return tokenExpiryMargin;
  }

  public void setTokenExpiryMargin(Duration tokenExpiryMargin) {
    this.tokenExpiryMargin = tokenExpiryMargin;
  }

  public int getPageSize() {
    return pageSize;
  }

  public void setPageSize(int pageSize) {
    this.pageSize = pageSize;
  }

  public Database getPaydb() {
    return paydb;
  }

  public void setPaydb(Database paydb) {
    this.paydb = paydb;
  }

  public Database getProxydb() {
    return proxydb;
  }

  public void setProxydb(Database proxydb) {
    this.proxydb = proxydb;
  }

  public Database getLockdb() {
    return lockdb;
  }

  public void setLockdb(Database lockdb) {
    this.lockdb = lockdb;
  }
}
