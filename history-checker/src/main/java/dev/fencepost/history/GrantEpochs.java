package dev.fencepost.history;

import dev.fencepost.history.Records.Grant;
import java.util.ArrayList;
import java.util.List;

/**
 * A lock backend's grant history across restores of the backend, joined into the records the
 * checker reads. The history lives in the backend, and a restore rewinds it with everything else:
 * the grants issued after the backup are erased, and the restored backend numbers its new entries
 * (lockdb's {@code lock_event.id}, etcd's revision) with the ids of the erased ones. So the history
 * is read before each restore and once more at the end, and each read is {@link #add added} in that
 * order:
 *
 * <ul>
 *   <li>the first read is kept whole: epoch 0;
 *   <li>a read after the n-th restore keeps only what the restored backend added ({@code seq} above
 *       the backup's last, {@code restoredUpTo}) and renumbers it after the last grant kept, so
 *       that {@code seq} stays the real order of issue, which {@code token_regressions} and {@code
 *       overlapping_grants} order by; its grants carry epoch n, which {@code
 *       token_reissued_after_restore} compares across.
 * </ul>
 */
public final class GrantEpochs {

  private final List<Grant> grants = new ArrayList<>();
  private int reads;
  private long lastSeq;

  /**
   * Adds one read of the backend's whole grant history: the first one before any restore ({@code
   * restoredUpTo} 0), each later one after one more restore, with {@code restoredUpTo} the last
   * {@code seq} the restored backend had right after the restore (the backup's last).
   */
  public synchronized GrantEpochs add(List<Grant> read, long restoredUpTo) {
    if (reads == 0 && restoredUpTo != 0) {
      throw new IllegalArgumentException("the first read precedes every restore: restoredUpTo 0");
    }
    int epoch = reads++;
    long offset = lastSeq - restoredUpTo;
    for (Grant g : read) {
      if (epoch == 0 || g.seq() > restoredUpTo) {
        grants.add(
            new Grant(
                g.source(),
                g.key(),
                g.token(),
                g.kind(),
                g.session(),
                epoch == 0 ? g.seq() : g.seq() + offset,
                g.at(),
                epoch));
      }
    }
    lastSeq = grants.stream().mapToLong(Grant::seq).max().orElse(0);
    return this;
  }

  /** Every grant kept, in the order read. */
  public synchronized List<Grant> grants() {
    return List.copyOf(grants);
  }
}
