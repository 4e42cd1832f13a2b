package dev.fencepost.reconciliation;

import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.testsupport.logging.CapturedEvents;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The reconciliation application against the real stack, one Spring context for every test class
 * that extends this (same configuration, so it is cached). Each test gets a {@link World} with a
 * fresh paydb; the application's own paydb serves the actuator tests.
 */
@SpringBootTest(
    classes = ReconciliationApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    useMainMethod = SpringBootTest.UseMainMethod.ALWAYS)
abstract class ReconciliationTestBase {

  static final TestStack STACK = TestStack.get();

  @DynamicPropertySource
  static void wire(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", STACK.batchdb::jdbcUrl);
    // As the runtime roles (ADR 0160): the platform migrated both databases as their owners.
    registry.add("spring.datasource.username", () -> STACK.batchdb.runtime().username());
    registry.add("spring.datasource.password", () -> STACK.batchdb.runtime().password());
    registry.add("fencepost.paydb.url", STACK.appPaydb::jdbcUrl);
    registry.add("fencepost.paydb.username", () -> STACK.appPaydb.runtime().username());
    registry.add("fencepost.paydb.password", () -> STACK.appPaydb.runtime().password());
    registry.add("fencepost.reconciliation.proxy-base-url", STACK::proxyUrl);
    registry.add("fencepost.reconciliation.rail-statement-url", STACK::stubUrl);
    registry.add("fencepost.lock.client.base-url", STACK::lockServerUrl);
    STACK.reconcilerIdentity().forEach((name, value) -> registry.add(name, () -> value));
    registry.add("logging.structured.format.console", () -> "");
    registry.add("spring.batch.job.enabled", () -> "false");
  }

  @Autowired LockTemplate locks;

  /**
   * The management port: the operator endpoints, the job launcher and the scrape are served there.
   */
  @LocalManagementPort int managementPort;

  /** {@code path} on this application's management port. */
  String management(String path) {
    return "http://127.0.0.1:" + managementPort + path;
  }

  /** The operator endpoint of one payout: {@code /actuator/payoutops/{payoutId}}. */
  String payoutOps(Object payoutId) {
    return management("/actuator/payoutops/" + payoutId);
  }

  final CapturedEvents events = new CapturedEvents();
  World world;

  @BeforeEach
  void newWorld() {
    world = new World(locks);
    events.start(); // after every Spring context has started (it re-initialises logging)
  }

  @AfterEach
  void closeWorld() {
    events.stop();
    world.close();
  }
}
