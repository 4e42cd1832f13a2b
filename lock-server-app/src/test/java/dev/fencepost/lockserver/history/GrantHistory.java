package dev.fencepost.lockserver.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Records every grant a test obtained, with monotonic timestamps taken by the client around each
 * call, and checks the history against the lock's promises from the service's own view (INV-04,
 * INV-06). Thread-safe.
 *
 * <p>A grant is known to have been issued somewhere between its acquire's invocation and
 * completion, and to have ended somewhere between its release's invocation and completion. Two
 * grants of one key therefore provably overlapped if the later one's acquire completed before the
 * earlier one's release was even invoked. Tests that use this keep sessions alive, so a grant can
 * end only by release.
 */
public final class GrantHistory {

  /**
   * One grant's life as the client saw it.
   *
   * @param key the lock
   * @param token its fencing token
   * @param client which client (session) held it
   * @param acquireInvokedNanos {@code System.nanoTime()} just before the acquire call
   * @param acquireCompletedNanos just after the acquire call returned the grant
   * @param releaseInvokedNanos just before the release call ({@code Long.MAX_VALUE} if never)
   */
  public record Grant(
      String key,
      long token,
      String client,
      long acquireInvokedNanos,
      long acquireCompletedNanos,
      long releaseInvokedNanos) {}

  private final ConcurrentLinkedQueue<Grant> grants = new ConcurrentLinkedQueue<>();

  public void record(Grant grant) {
    grants.add(grant);
  }

  public int size() {
    return grants.size();
  }

  public List<Grant> grants() {
    return List.copyOf(grants);
  }

  /** Pairs of grants of one key that provably overlapped. Must be empty (INV-06). */
  public List<String> overlaps() {
    List<String> violations = new ArrayList<>();
    for (List<Grant> ofKey : byKey().values()) {
      List<Grant> sorted = new ArrayList<>(ofKey);
      sorted.sort(Comparator.comparingLong(Grant::acquireCompletedNanos));
      for (int i = 0; i < sorted.size(); i++) {
        for (int j = i + 1; j < sorted.size(); j++) {
          Grant earlier = sorted.get(i);
          Grant later = sorted.get(j);
          if (later.token() == earlier.token()) {
            continue; // the same grant returned twice (idempotent re-acquire) is not an overlap
          }
          if (later.acquireCompletedNanos() < earlier.releaseInvokedNanos()) {
            violations.add("overlap on " + earlier.key() + ": " + earlier + " and " + later);
          }
        }
      }
    }
    return violations;
  }

  /**
   * Token regressions (INV-04): per key, grants in the order they were issued must carry strictly
   * increasing tokens; and no token may be issued to two different grants. Must be empty.
   *
   * <p>When the grants of a key do not overlap, the order of their acquire completions is the order
   * in which they were issued: a later grant was issued after the earlier one ended, hence after
   * the earlier acquire completed. So this check needs no server clock, and it catches a token
   * drawn early and granted late even when the two acquire calls ran concurrently.
   */
  public List<String> tokenRegressions() {
    List<String> violations = new ArrayList<>();
    for (List<Grant> ofKey : byKey().values()) {
      List<Grant> sorted = new ArrayList<>(ofKey);
      sorted.sort(Comparator.comparingLong(Grant::acquireCompletedNanos));
      for (int i = 1; i < sorted.size(); i++) {
        Grant earlier = sorted.get(i - 1);
        Grant later = sorted.get(i);
        boolean sameGrant =
            later.token() == earlier.token() && later.client().equals(earlier.client());
        if (!sameGrant && later.token() <= earlier.token()) {
          violations.add(
              "token did not increase on " + later.key() + ": " + earlier + " then " + later);
        }
      }
    }
    Map<Long, Set<String>> holdersByToken = new HashMap<>();
    for (Grant grant : grants) {
      holdersByToken
          .computeIfAbsent(grant.token(), t -> new HashSet<>())
          .add(grant.key() + "/" + grant.client());
    }
    holdersByToken.forEach(
        (token, holders) -> {
          if (holders.size() > 1) {
            violations.add("token " + token + " issued to " + holders);
          }
        });
    return violations;
  }

  private Map<String, List<Grant>> byKey() {
    Map<String, List<Grant>> byKey = new HashMap<>();
    for (Grant grant : grants) {
      byKey.computeIfAbsent(grant.key(), k -> new ArrayList<>()).add(grant);
    }
    return byKey;
  }
}
