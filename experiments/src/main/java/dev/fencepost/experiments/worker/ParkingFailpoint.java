package dev.fencepost.experiments.worker;

import dev.fencepost.payment.Payout;
import dev.fencepost.payoutjob.PayoutFailpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parks the worker the first time a payout reaches {@code point}: writes {@code
 * <control-dir>/parked} (payout id, point, token stamp) and waits for {@code <control-dir>/resume}.
 * The harness owns what happens meanwhile (SIGSTOP past the lease, a takeover, SIGCONT; or
 * SIGKILL). Files, not sockets: they survive the signals and need no port.
 */
final class ParkingFailpoint implements PayoutFailpoint {

  private static final Logger log = LoggerFactory.getLogger(ParkingFailpoint.class);

  private final Point point;
  private final Path controlDir;
  private final AtomicBoolean parkedOnce = new AtomicBoolean();
  private volatile boolean resumed;

  ParkingFailpoint(Point point, Path controlDir) {
    this.point = point;
    this.controlDir = controlDir;
  }

  /** True once this worker was parked and resumed. */
  boolean resumed() {
    return resumed;
  }

  @Override
  public void reached(Point reached, Payout payout) {
    if (reached != point || !parkedOnce.compareAndSet(false, true)) {
      return;
    }
    try {
      Files.createDirectories(controlDir);
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
      Path resume = controlDir.resolve("resume");
      while (!Files.exists(resume)) {
        TimeUnit.MILLISECONDS.sleep(5);
      }
      resumed = true;
      log.atWarn()
          .addKeyValue("event", "experiment.resumed")
          .addKeyValue("payoutId", payout.id())
          .addKeyValue("point", point)
          .log("resumed at {} with {}", point, payout.id());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while parked", e);
    }
  }
}
