package dev.fencepost.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * The hand-offs of one hot key (ADR 0183). Every client of the run reports the moment it starts a
 * release ({@link #releasing}) and the moment its waiting acquire returned ({@link #granted}); a
 * hand-off is a release followed by the next grant, whoever that grant went to. So a client that
 * releases and takes the lock straight back is a hand-off to itself, with its latency, and the
 * fairness figures show how often that happened. Only the first grant of a run has no release
 * before it.
 *
 * <p>Hand-offs whose release began before the measurement window ({@link #windowFrom}) belong to
 * the warm-up, and those whose release began after it closed ({@link #windowUntil}) to the drain of
 * the queue once the clients stop (no releaser takes the lock back then, so they would flatter the
 * fairness and skew the latency); both are counted apart. Methods are synchronized: the harness
 * must not rely on the lock under test for its own bookkeeping (a grant while the harness still
 * sees a holder is counted as an overlap, not hidden).
 */
public final class Handoffs {

  private final long[] grantsPerClient;
  private final Histogram latency = LoadGenerator.histogram();
  private final Histogram toAnother = LoadGenerator.histogram();
  private long windowFrom = Long.MIN_VALUE;
  private long windowUntil = Long.MAX_VALUE;
  private int holder = -1;
  private int lastReleaser = -1;
  private long lastRelease;
  private long grants;
  private long firstGrants;
  private long warmUpHandoffs;
  private long drainHandoffs;
  private long samples;
  private long sameClient;
  private long releases;
  private long overlaps;
  private long failedWaits;
  private long maxWaitNanos;

  public Handoffs(int clients) {
    this.grantsPerClient = new long[clients];
  }

  /** Hand-offs whose release begins at or after {@code nanos} are measured. */
  public synchronized void windowFrom(long nanos) {
    this.windowFrom = nanos;
  }

  /** Hand-offs whose release begins at or after {@code nanos} are the drain, not measured. */
  public synchronized void windowUntil(long nanos) {
    this.windowUntil = nanos;
  }

  /**
   * Client {@code client} holds the lock from {@code grantedNanos}; it began waiting at {@code
   * waitedFromNanos}.
   */
  public synchronized void granted(int client, long waitedFromNanos, long grantedNanos) {
    grants++;
    if (holder >= 0) {
      overlaps++;
    }
    holder = client;
    if (lastReleaser < 0) {
      firstGrants++;
      return;
    }
    int releaser = lastReleaser;
    long released = lastRelease;
    lastReleaser = -1;
    if (released < windowFrom) {
      warmUpHandoffs++;
      return;
    }
    if (released >= windowUntil) {
      drainHandoffs++;
      return;
    }
    long nanos = Math.max(0, grantedNanos - released);
    latency.recordValue(Math.min(nanos, latency.getHighestTrackableValue()));
    samples++;
    if (releaser == client) {
      sameClient++;
    } else {
      toAnother.recordValue(Math.min(nanos, toAnother.getHighestTrackableValue()));
    }
    grantsPerClient[client]++;
    maxWaitNanos = Math.max(maxWaitNanos, grantedNanos - waitedFromNanos);
  }

  /**
   * Client {@code client}'s waiting acquire, begun at {@code waitedFromNanos}, ended without the
   * lock at {@code failedNanos} (it gave up at its deadline, or failed): its wait counts towards
   * the longest wait all the same.
   */
  public synchronized void waitFailed(int client, long waitedFromNanos, long failedNanos) {
    failedWaits++;
    maxWaitNanos = Math.max(maxWaitNanos, failedNanos - waitedFromNanos);
  }

  /** Client {@code client} starts releasing the lock at {@code nanos}. */
  public synchronized void releasing(int client, long nanos) {
    releases++;
    if (holder == client) {
      holder = -1;
    }
    lastReleaser = client;
    lastRelease = nanos;
  }

  /** What this run's hand-offs came to. */
  public synchronized Tally tally() {
    Tally t = new Tally();
    t.latency.add(latency);
    t.toAnother.add(toAnother);
    t.grants = grants;
    t.firstGrants = firstGrants;
    t.warmUpHandoffs = warmUpHandoffs;
    t.drainHandoffs = drainHandoffs;
    t.samples = samples;
    t.sameClient = sameClient;
    t.releases = releases;
    t.overlaps = overlaps;
    t.failedWaits = failedWaits;
    t.maxWaitNanos = maxWaitNanos;
    t.runs.add(grantsPerClient.clone());
    return t;
  }

  /** Measured hand-offs so far (for a run that goes on until it has enough). */
  public synchronized long samples() {
    return samples;
  }

  /** Hand-offs of one or more runs of the same (scenario, target), merged. */
  public static final class Tally {
    /** Release to next grant, every measured hand-off (ns). */
    public final Histogram latency = LoadGenerator.histogram();

    /** The same, only hand-offs to a client other than the one that released. */
    public final Histogram toAnother = LoadGenerator.histogram();

    public long grants;
    public long firstGrants;
    public long warmUpHandoffs;
    public long drainHandoffs;
    public long samples;
    public long sameClient;
    public long releases;
    public long overlaps;

    /** Waiting acquires that ended without the lock (deadline or error). */
    public long failedWaits;

    /** The longest any waiter waited, granted or not (ns). */
    public long maxWaitNanos;

    /** Measured grants per client, one array per run (clients are new in every run). */
    public final List<long[]> runs = new ArrayList<>();

    public void add(Tally other) {
      latency.add(other.latency);
      toAnother.add(other.toAnother);
      grants += other.grants;
      firstGrants += other.firstGrants;
      warmUpHandoffs += other.warmUpHandoffs;
      drainHandoffs += other.drainHandoffs;
      samples += other.samples;
      sameClient += other.sameClient;
      releases += other.releases;
      overlaps += other.overlaps;
      failedWaits += other.failedWaits;
      maxWaitNanos = Math.max(maxWaitNanos, other.maxWaitNanos);
      runs.addAll(other.runs);
    }

    /** Share of measured hand-offs that went back to the client that released; NaN if none. */
    public double sameClientShare() {
      return samples == 0 ? Double.NaN : (double) sameClient / samples;
    }

    /** Jain's index of the worst run (rounds are not pooled: that could hide a favourite). */
    public double worstJain() {
      double worst = Double.NaN;
      for (long[] run : runs) {
        double j = Stats.jain(run);
        if (!Double.isNaN(j) && (Double.isNaN(worst) || j < worst)) {
          worst = j;
        }
      }
      return worst;
    }

    /** Fewest measured grants any client of any run got. */
    public long minGrantsPerClient() {
      return runs.stream().flatMapToLong(Arrays::stream).min().orElse(0);
    }

    /** Most measured grants any client of any run got. */
    public long maxGrantsPerClient() {
      return runs.stream().flatMapToLong(Arrays::stream).max().orElse(0);
    }

    /**
     * Every grant is a run's first grant, a warm-up hand-off, a drain hand-off or a measured
     * sample: nothing dropped.
     */
    public boolean accountsForEveryGrant() {
      return grants == firstGrants + warmUpHandoffs + drainHandoffs + samples;
    }
  }
}
