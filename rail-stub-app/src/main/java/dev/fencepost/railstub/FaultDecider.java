package dev.fencepost.railstub;

import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Decides the fault mode and nominal latency of each request. Deterministic: a decision depends
 * only on the seed, the client reference and the attempt number for that reference, never on the
 * order in which concurrent requests arrive, so an experiment repeats exactly.
 */
public final class FaultDecider {

  /** z-score of the 99th percentile of the standard normal distribution. */
  private static final double Z_99 = 2.3263478740408408;

  private final long seed;
  private final StubProperties.Latency latency;
  private final FaultPlan startupPlan;
  private final AtomicReference<FaultPlan> plan;
  private final Map<String, AtomicLong> attempts = new ConcurrentHashMap<>();
  private final int maxReferences;

  /** A decider counting attempts for any number of client references (tests of decisions). */
  public FaultDecider(long seed, StubProperties.Latency latency, FaultPlan startupPlan) {
    this(seed, latency, startupPlan, Integer.MAX_VALUE);
  }

  /**
   * @param maxReferences the most distinct client references whose attempts are counted; a new one
   *     beyond it is refused ({@link RailBookFullException})
   */
  public FaultDecider(
      long seed, StubProperties.Latency latency, FaultPlan startupPlan, int maxReferences) {
    this.maxReferences = maxReferences;
    this.seed = seed;
    this.latency = latency;
    this.startupPlan = startupPlan;
    this.plan = new AtomicReference<>(startupPlan);
  }

  /** One decision per request. */
  public record Decision(FaultMode mode, Duration nominalLatency, long attempt) {}

  /**
   * @throws RailBookFullException when {@code clientReference} is new and the attempt counts are at
   *     their maximum; nothing is counted then
   */
  public Decision decide(String clientReference) {
    // Approximate under concurrency (size() is a snapshot): the bound is against running out of
    // heap, not an exact count.
    if (attempts.size() >= maxReferences && !attempts.containsKey(clientReference)) {
      throw new RailBookFullException("client references", maxReferences);
    }
    long attempt =
        attempts.computeIfAbsent(clientReference, ignored -> new AtomicLong()).incrementAndGet();
    SplittableRandom random = new SplittableRandom(mix(clientReference, attempt));
    FaultMode mode = plan.get().choose(clientReference, random.nextDouble());
    return new Decision(mode, sampleLatency(random), attempt);
  }

  public FaultPlan plan() {
    return plan.get();
  }

  public void replace(FaultPlan newPlan) {
    plan.set(newPlan);
  }

  /** Back to the plan configured at start-up. */
  public void restoreStartupPlan() {
    plan.set(startupPlan);
  }

  /** Forgets attempt counts, so a cleared stub repeats the same decisions from the start. */
  public void forgetAttempts() {
    attempts.clear();
  }

  private long mix(String clientReference, long attempt) {
    long h = seed;
    h = h * 0x9E3779B97F4A7C15L + clientReference.hashCode();
    h = h * 0xC2B2AE3D27D4EB4FL + attempt;
    return h;
  }

  private Duration sampleLatency(SplittableRandom random) {
    if (latency.distribution() == StubProperties.Distribution.FIXED) {
      return latency.fixed();
    }
    double medianMillis = Math.max(1, latency.median().toMillis());
    double p99Millis = Math.max(medianMillis, latency.p99().toMillis());
    double mu = Math.log(medianMillis);
    double sigma = (Math.log(p99Millis) - mu) / Z_99;
    long sampled = Math.round(Math.exp(mu + sigma * random.nextGaussian()));
    return Duration.ofMillis(Math.min(sampled, latency.max().toMillis()));
  }
}
