package dev.fencepost.experiments.worker;

import dev.fencepost.payment.Payout;
import dev.fencepost.payoutjob.PayoutFailpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parks the worker the first time a payout reaches {@code point}: writes {@code
 * <control-dir>/parked} (payout id, point, token stamp) and waits for {@code <control-dir>/resume}.
 * With {@code count} above 1 (a worker with as many payout threads) the first {@code count} payouts
 * to reach it park, each holding its account's lock, and {@code parked} is written when the last of
 * them has: the harness then acts on a worker holding that many locks. The harness owns what
 * happens meanwhile (SIGSTOP past the lease, a takeover, SIGCONT; or SIGKILL). Files, not sockets:
 * they survive the signals and need no port.
 */
final class ParkingFailpoint implements PayoutFailpoint {

  private static final Logger log = LoggerFactory.getLogger(ParkingFailpoint.class);

  private final Point point;
  private final Path controlDir;
  private final int count;
  private final AtomicInteger parked = new AtomicInteger();
  private volatile boolean resumed;

  ParkingFailpoint(Point point, Path controlDir) {
    this(point, controlDir, 1);
  }

  ParkingFailpoint(Point point, Path controlDir, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("park-count must be at least 1: " + count);
    }
    this.point = point;
    this.controlDir = controlDir;
    this.count = count;
  }

  /** True once this worker was parked and resumed. */
  boolean resumed() {
    return resumed;
  }

  /** A worker parked at RAIL_SUBMITTED or RAIL_ACKED must have committed it (ADR 0219). */
  @Override
  public boolean stepsThroughSettlement() {
    return point.passedBySettlement();
  }

  @Override
  public void reached(Point reached, Payout payout) {
    if (reached != point) {
      return;
    }
    int nth = parked.incrementAndGet();
    if (nth > count) {
      return;
    }
    try {
      Files.createDirectories(controlDir);
      Path resume = controlDir.resolve("resume");
      if (nth < count) {
        log.atWarn()
            .addKeyValue("event", "experiment.parked")
            .addKeyValue("payoutId", payout.id())
            .addKeyValue("point", point)
            .addKeyValue("nth", nth)
            .log("parked at {} with {} ({} of {})", point, payout.id(), nth, count);
        awaitResume(resume, payout);
        return;
      }
      Path tmp = controlDir.resolve("parked.tmp");
      Files.writeString(
          tmp,
          "payoutId="
              + payout.id()
              + "\npoint="
              + point
              + "\ntoken="
              + payout.tokenStamp()
              + "\naccount="
              + payout.accountId()
              + "\n");
      // Atomic rename: the harness never reads a half-written file.
      Files.move(tmp, controlDir.resolve("parked"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      log.atWarn()
          .addKeyValue("event", "experiment.parked")
          .addKeyValue("payoutId", payout.id())
          .addKeyValue("point", point)
          .log("parked at {} with {}", point, payout.id());
      awaitResume(resume, payout);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while parked", e);
    }
  }

  private void awaitResume(Path resume, Payout payout) throws InterruptedException {
    while (!Files.exists(resume)) {
      TimeUnit.MILLISECONDS.sleep(5);
    }
    resumed = true;
    log.atWarn()
        .addKeyValue("event", "experiment.resumed")
        .addKeyValue("payoutId", payout.id())
        .addKeyValue("point", point)
        .log("resumed at {} with {}", point, payout.id());
  }
}
