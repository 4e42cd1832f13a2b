package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.payment.Payout;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Another payout thread of the process, started on a {@link PayoutCandidateReader#read} that finds
 * nothing it may take while other threads hold accounts, and waits: {@link #start} returns once it
 * waits.
 */
final class WaitingReader {

  private static final Duration NEVER = Duration.ofSeconds(60);

  private final Thread thread;
  private final AtomicReference<Payout> taken = new AtomicReference<>();

  private WaitingReader(PayoutCandidateReader reader) {
    thread =
        new Thread(
            () -> {
              try {
                taken.set(reader.read());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "waiting-payout-thread");
    thread.setDaemon(true);
  }

  static WaitingReader start(PayoutCandidateReader reader) {
    WaitingReader waiting = new WaitingReader(reader);
    waiting.thread.start();
    await().atMost(NEVER).until(() -> waiting.thread.getState() == Thread.State.WAITING);
    return waiting;
  }

  /** What its read returned, once it returned; fails if it is still waiting. */
  Payout got() throws InterruptedException {
    thread.join(NEVER.toMillis());
    assertThat(thread.isAlive()).as("still waiting").isFalse();
    return taken.get();
  }
}
