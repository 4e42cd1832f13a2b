package dev.fencepost.lockserver.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rules of {@link WaitQueues} (ADR 0208) on their own, without a database: a freed key wakes
 * its first waiter only, in the order they joined; a wake that arrives during an attempt is kept
 * for a retry; a wake that its waiter does not use goes on to the next one, also when the attempt
 * it began gave no answer; and a wake that comes while a woken waiter has yet to attempt wakes
 * nobody else (ADR 0212).
 */
class WaitQueuesTest {

  private static final long NO_WAIT = 0;

  private final WaitQueues queues = new WaitQueues();

  @Test
  void aFreedKeyWakesOnlyItsFirstWaiterAndTheNextFreeTheNext() {
    WaitQueues.Ticket first = queues.join("k");
    WaitQueues.Ticket second = queues.join("k");
    WaitQueues.Ticket third = queues.join("k");

    queues.wake("k");
    assertThat(queues.await(first, NO_WAIT)).isTrue();
    assertThat(queues.await(second, NO_WAIT)).isFalse();
    assertThat(queues.await(third, NO_WAIT)).isFalse();

    queues.leave(first, true);
    queues.wake("k");
    assertThat(queues.await(second, NO_WAIT)).isTrue();
    assertThat(queues.await(third, NO_WAIT)).isFalse();
  }

  @Test
  void aWakeOfAnotherKeyOrOfAKeyWithoutWaitersWakesNobody() {
    WaitQueues.Ticket waiter = queues.join("k");

    queues.wake("other");
    queues.wake("nobody-waits");

    assertThat(queues.await(waiter, NO_WAIT)).isFalse();
  }

  @Test
  void aWokenWaiterThatLeavesWithoutTheKeyPassesTheWakeToTheNext() {
    WaitQueues.Ticket first = queues.join("k");
    WaitQueues.Ticket second = queues.join("k");
    queues.wake("k");

    queues.leave(first, false);

    assertThat(queues.await(second, NO_WAIT)).isTrue();
  }

  @Test
  void aWokenWaiterWhoseAttemptGaveNoAnswerPassesTheWakeToTheNext() {
    WaitQueues.Ticket first = queues.join("k");
    WaitQueues.Ticket second = queues.join("k");
    queues.wake("k");

    queues.beforeAttempt(first);
    queues.leave(first, false); // the attempt threw: first's session was gone, or lockdb was out

    assertThat(queues.await(second, NO_WAIT))
        .as("the freed key is still free, and nobody else would wake second for it")
        .isTrue();
  }

  @Test
  void aWokenWaiterWhoseAttemptFoundTheKeyHeldOwesNoWake() {
    WaitQueues.Ticket first = queues.join("k");
    WaitQueues.Ticket second = queues.join("k");
    queues.wake("k");

    queues.beforeAttempt(first);
    queues.foundHeld(first); // another took the key first: its free will wake the queue again
    queues.leave(first, false); // first's deadline

    assertThat(queues.await(second, NO_WAIT)).isFalse();
    queues.wake("k");
    assertThat(queues.await(second, NO_WAIT)).isTrue();
  }

  @Test
  void aWokenWaiterGrantedByItsAttemptOwesNoWake() {
    WaitQueues.Ticket first = queues.join("k");
    WaitQueues.Ticket second = queues.join("k");
    queues.wake("k");

    queues.beforeAttempt(first);
    queues.leave(first, true);

    assertThat(queues.await(second, NO_WAIT)).isFalse();
  }

  @Test
  void anAttemptNotBegunOnAWakeOwesNoneWhenItGivesNoAnswer() {
    WaitQueues.Ticket first = queues.join("k");
    WaitQueues.Ticket second = queues.join("k");

    queues.beforeAttempt(first); // its first attempt, or one after sleeping to the holder's expiry
    queues.leave(first, false);

    assertThat(queues.await(second, NO_WAIT)).isFalse();
  }

  @Test
  void aWokenWaiterThatGotTheKeyKeepsTheWake() {
    WaitQueues.Ticket first = queues.join("k");
    WaitQueues.Ticket second = queues.join("k");
    queues.wake("k");

    queues.leave(first, true);

    assertThat(queues.await(second, NO_WAIT)).isFalse();
  }

  @Test
  void aWaiterThatLeavesUnwokenLeavesTheOthersAsTheyWere() {
    WaitQueues.Ticket first = queues.join("k");
    WaitQueues.Ticket second = queues.join("k");

    queues.leave(first, false);
    assertThat(queues.await(second, NO_WAIT)).isFalse();

    queues.wake("k");
    assertThat(queues.await(second, NO_WAIT)).isTrue();
  }

  @Test
  void aWakeDuringAnAttemptIsKeptForARetryAndTheWaiterKeepsItsPlaceAtTheHead() {
    WaitQueues.Ticket first = queues.join("k");
    WaitQueues.Ticket second = queues.join("k");

    queues.beforeAttempt(first);
    queues.wake("k"); // the key is freed while first's attempt runs
    assertThat(queues.woken(first)).as("retry at once: the failure may predate the free").isTrue();

    queues.beforeAttempt(first); // the retry uses the wake up and puts first back at the head
    assertThat(queues.woken(first)).isFalse();
    queues.wake("k");
    assertThat(queues.await(first, NO_WAIT)).isTrue();
    assertThat(queues.await(second, NO_WAIT)).isFalse();
  }

  @Test
  void aSecondWakeBeforeTheWokenWaiterAttemptsWakesNobodyElse() {
    WaitQueues.Ticket first = queues.join("k");
    WaitQueues.Ticket second = queues.join("k");

    queues.wake("k"); // a release's local wake
    queues.wake("k"); // the same release's NOTIFY, before first has attempted
    assertThat(queues.await(first, NO_WAIT)).isTrue();
    assertThat(queues.await(second, NO_WAIT))
        .as("woken, second would race first for the key and could take it out of turn")
        .isFalse();

    queues.beforeAttempt(first);
    queues.wake("k"); // arrives during first's attempt: first retries, second still waits
    assertThat(queues.woken(first)).isTrue();
    assertThat(queues.await(second, NO_WAIT)).isFalse();

    queues.leave(first, true);
    assertThat(queues.await(second, NO_WAIT)).isFalse();
    queues.wake("k"); // first releases
    assertThat(queues.await(second, NO_WAIT)).isTrue();
  }

  @Test
  void aWakeHeldBackForAWokenWaiterReachesTheNextIfThatWaiterLeavesWithoutTheKey() {
    WaitQueues.Ticket first = queues.join("k");
    WaitQueues.Ticket second = queues.join("k");
    queues.wake("k");
    queues.wake("k");

    queues.leave(first, false); // its deadline came before its attempt

    assertThat(queues.await(second, NO_WAIT)).isTrue();
  }

  @Test
  void aSleepingWaiterIsWokenAtOnceAndReportedAsleepUntilThen() throws Exception {
    WaitQueues.Ticket waiter = queues.join("k");
    CompletableFuture<Boolean> woke =
        CompletableFuture.supplyAsync(() -> queues.await(waiter, TimeUnit.SECONDS.toNanos(30)));
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> queues.asleep("k") == 1);

    queues.wake("k");

    assertThat(woke.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(queues.asleep("k")).isZero();
  }

  @Test
  void wakeAllOfAKeyWakesEveryWaiterOfThatKeyOnly() {
    WaitQueues.Ticket a = queues.join("a");
    WaitQueues.Ticket b1 = queues.join("b");
    WaitQueues.Ticket b2 = queues.join("b");

    queues.wakeAll("b");

    assertThat(queues.await(a, NO_WAIT)).isFalse();
    assertThat(queues.await(b1, NO_WAIT)).isTrue();
    assertThat(queues.await(b2, NO_WAIT)).isTrue();
  }

  @Test
  void wakeAllWakesEveryWaiterOfEveryKey() {
    WaitQueues.Ticket a = queues.join("a");
    WaitQueues.Ticket b1 = queues.join("b");
    WaitQueues.Ticket b2 = queues.join("b");

    queues.wakeAll();

    assertThat(queues.await(a, NO_WAIT)).isTrue();
    assertThat(queues.await(b1, NO_WAIT)).isTrue();
    assertThat(queues.await(b2, NO_WAIT)).isTrue();
  }
}
