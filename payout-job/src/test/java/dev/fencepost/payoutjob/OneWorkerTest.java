package dev.fencepost.payoutjob;

import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.payment.PaymentResource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A test class whose tests share one ordinary worker on the shared {@link Platform}, started before
 * the first test and closed (its lock session with it) after the last. Test classes run one after
 * another in one JVM, so the static fields are only ever one class's.
 */
abstract class OneWorkerTest {

  static Platform platform;
  static ConfigurableApplicationContext worker;

  @BeforeAll
  static void startWorker() {
    platform = Platform.shared();
    worker = platform.worker();
  }

  // A subclass's own @AfterAll runs before this one, while the worker is still up.
  @AfterAll
  static void closeWorker() {
    worker.close();
  }

  /**
   * An executor with the worker's lock client and proxy client over {@code paydb}: a paydb a test
   * has wrapped (to count or refuse statements) or one of its own.
   */
  static PayoutExecutor executorOver(PaymentResource paydb, String workerId) {
    return executorOver(
        worker.getBean(LockTemplate.class), paydb, workerId, new SimpleMeterRegistry());
  }

  /** The same, taking its locks through {@code locks} and counting in {@code meters}. */
  static PayoutExecutor executorOver(
      LockTemplate locks, PaymentResource paydb, String workerId, MeterRegistry meters) {
    return new PayoutExecutor(
        locks,
        paydb,
        worker.getBean(RailProxyClient.class),
        PayoutFailpoint.NONE,
        PayoutEffectListener.NONE,
        workerId,
        Duration.ofMillis(250),
        meters);
  }
}
