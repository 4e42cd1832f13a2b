package dev.fencepost.payoutjob;

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
}
