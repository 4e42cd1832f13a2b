package dev.fencepost.payoutjob;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the payout job ({@code fencepost.payout.*}); see docs/payout-job.md. */
@ConfigurationProperties("fencepost.payout")
public class PayoutJobProperties {

  /**
   * Identity of this worker, recorded as the claimer and on every audit row (FR-30). Empty means
   * {@code payout-job@<host>:<pid>}.
   */
  private String workerId = "";

  /**
   * How long to wait for an account's lock held by another worker before skipping the payout for
   * this run (UC-02: another worker is doing it; a later run takes it).
   */
  private Duration lockWait = Duration.ofMillis(250);

  /** Candidates fetched per query (1..1000). */
  private int pageSize = 100;

  /**
   * Times one payout may be taken up within one run; bounds a run that keeps meeting the same held
   * lock or an unreachable proxy, so every run ends.
   */
  private int maxAttemptsPerRun = 3;

  /** Exit the process with the job's exit code when the start-up run ends (CronJob mode). */
  private boolean exitWhenDone = false;

  /**
   * Payouts one process executes at once (1..256), each on its own thread with its own lock acquire
   * (ADR 0063). 1 keeps the single-threaded step. The paydb pool ({@code
   * fencepost.paydb.maximum-pool-size}) and the batchdb pool are raised to fit when they are
   * smaller.
   */
  private int concurrency = 1;

  /**
   * Payouts per job-repository commit on each payout thread (1..1000, ADR 0207). A chunk also ends
   * as soon as no candidate is ready, so a thread never waits while holding payouts it has not yet
   * executed. Only the job's bookkeeping waits for the commit (its read, write and commit counts,
   * as the jobs endpoint shows them): every payout's effects are committed in paydb and the proxy
   * during its own attempt. 1 commits after every payout.
   */
  private int commitInterval = 10;

  /**
   * Payouts one grant of an account's lock may carry (1..1000, ADR 0236). After a payout that ends
   * POSTED, FAILED or found already finished, a payout thread that still holds the account's lock
   * takes the account's next PENDING payout under the same grant, oldest first, instead of
   * releasing the lock and asking for it again; any other ending releases it. 1 releases the lock
   * after every payout.
   */
  private int payoutsPerGrant = 10;

  /**
   * When set, each run appends one line per payout attempt to this file as it goes: outcome, the
   * attempt's duration in microseconds (from the lock's acquire, or from the end of the payout
   * before it under the same grant, to its own end) and when it ended (epoch milliseconds). A
   * benchmark seam for the local platform (ADR 0095); empty writes nothing.
   */
  private String timingsFile = "";

  private final Proxy proxy = new Proxy();

  private final Loop loop = new Loop();

  private final Metrics metrics = new Metrics();

  public String getWorkerId() {
    return workerId;
  }

  public void setWorkerId(String workerId) {
    this.workerId = workerId;
  }

  public Duration getLockWait() {
    return lockWait;
  }

  public void setLockWait(Duration lockWait) {
    this.lockWait = lockWait;
  }

  public int getPageSize() {
    return pageSize;
  }

  public void setPageSize(int pageSize) {
    this.pageSize = pageSize;
  }

  public int getMaxAttemptsPerRun() {
    return maxAttemptsPerRun;
  }

  public void setMaxAttemptsPerRun(int maxAttemptsPerRun) {
    this.maxAttemptsPerRun = maxAttemptsPerRun;
  }

  public int getConcurrency() {
    return concurrency;
  }

  public void setConcurrency(int concurrency) {
    if (concurrency < 1 || concurrency > 256) {
      throw new IllegalArgumentException("fencepost.payout.concurrency must be 1..256");
    }
    this.concurrency = concurrency;
  }

  public int getCommitInterval() {
    return commitInterval;
  }

  public void setCommitInterval(int commitInterval) {
    if (commitInterval < 1 || commitInterval > 1000) {
      throw new IllegalArgumentException("fencepost.payout.commit-interval must be 1..1000");
    }
    this.commitInterval = commitInterval;
  }

  public int getPayoutsPerGrant() {
    return payoutsPerGrant;
  }

  public void setPayoutsPerGrant(int payoutsPerGrant) {
    if (payoutsPerGrant < 1 || payoutsPerGrant > 1000) {
      throw new IllegalArgumentException("fencepost.payout.payouts-per-grant must be 1..1000");
    }
    this.payoutsPerGrant = payoutsPerGrant;
  }

  public String getTimingsFile() {
    return timingsFile;
  }

  public void setTimingsFile(String timingsFile) {
    this.timingsFile = timingsFile;
  }

  public boolean isExitWhenDone() {
    return exitWhenDone;
  }

  public void setExitWhenDone(boolean exitWhenDone) {
    this.exitWhenDone = exitWhenDone;
  }

  public Proxy getProxy() {
    return proxy;
  }

  public Loop getLoop() {
    return loop;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  /**
   * paydb's backlog as gauges ({@link PaydbGauges}, ADR 0175): read on a schedule by every worker,
   * so the alerts on backlog, ambiguity and reconciliation work whichever job runs when.
   */
  public static class Metrics {

    /** Publish the paydb gauges. */
    private boolean enabled = true;

    /**
     * How often the gauges' queries run (one small set of indexed queries per worker and interval,
     * never per scrape); at least one second.
     */
    private Duration refresh = Duration.ofSeconds(30);

    /**
     * A-10's resolution SLA for a RAIL_AMBIGUOUS payout; keep it equal to the reconciler's {@code
     * fencepost.reconciliation.resolution-sla} (both default to 4 h), which pages the same payouts
     * as AMBIGUOUS_BEYOND_SLA.
     */
    private Duration ambiguousSla = Duration.ofHours(4);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getRefresh() {
      return refresh;
    }

    public void setRefresh(Duration refresh) {
      if (refresh.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException("fencepost.payout.metrics.refresh must be at least 1s");
      }
      this.refresh = refresh;
    }

    public Duration getAmbiguousSla() {
      return ambiguousSla;
    }

    public void setAmbiguousSla(Duration ambiguousSla) {
      if (ambiguousSla.isNegative() || ambiguousSla.isZero()) {
        throw new IllegalArgumentException("fencepost.payout.metrics.ambiguous-sla must be > 0");
      }
      this.ambiguousSla = ambiguousSla;
    }
  }

  /** The rail proxy, the second guard. */
  public static class Proxy {

    /** Base URL of rail-proxy-app. */
    private String baseUrl = "http://localhost:8082";

    /**
     * Whole submit exchange. Longer than the proxy's own rail timeout (10 s, A-07) so that the
     * proxy, not this client, decides and records a rail timeout; a timeout here leaves the payout
     * CLAIMED for recovery by the proxy's record (FR-24).
     */
    private Duration timeout = Duration.ofSeconds(15);

    /** Opening a connection to the proxy. */
    private Duration connectTimeout = Duration.ofSeconds(2);

    /** One read of a submission record (recovery). */
    private Duration readTimeout = Duration.ofSeconds(5);

    public String getBaseUrl() {
      return baseUrl;
    }

    public void setBaseUrl(String baseUrl) {
      this.baseUrl = baseUrl;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
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
  }

  /** Deployment mode (ADR 0060): run the job again and again in one long-lived process. */
  public static class Loop {

    /** Whether this process runs payoutJob in a loop (set spring.batch.job.enabled=false). */
    private boolean enabled = false;

    /** Pause after a run that found nothing to do, or failed (e.g. lock service down). */
    private Duration idlePause = Duration.ofSeconds(5);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getIdlePause() {
      return idlePause;
    }

    public void setIdlePause(Duration idlePause) {
      this.idlePause = idlePause;
    }
  }
}
