package dev.fencepost.payment;

import dev.fencepost.testsupport.logging.CapturedEvents;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's own paydb and, fresh for each test, what most tests here act on and observe: the
 * library over it (fencing enforced) with a meter registry of its own, the {@link Scenarios} that
 * drive it into a state, direct SQL on the same database for corrupting and asserting, and the
 * structured events logged meanwhile, captured from before anything is built. Register it as a
 * static field.
 */
final class PaymentFixture
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  private final EmbeddedPostgresExtension db = Paydb.extension();
  private final CapturedEvents events = new CapturedEvents();
  private final String loader;
  private SimpleMeterRegistry meters;
  private PaymentResource resource;
  private Scenarios scenarios;
  private Paydb paydb;

  private PaymentFixture(String loader) {
    this.loader = loader;
  }

  /**
   * @param loader the intake's loader name, recorded in the audit trail of what it creates
   */
  static PaymentFixture withLoader(String loader) {
    return new PaymentFixture(loader);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    db.beforeAll(context);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    db.afterAll(context);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    events.start();
    meters = new SimpleMeterRegistry();
    resource = new PaymentResource(dataSource(), meters);
    scenarios = new Scenarios(resource, new PayoutIntake(dataSource(), loader));
    paydb = new Paydb(dataSource());
  }

  @Override
  public void afterEach(ExtensionContext context) {
    events.stop();
  }

  DataSource dataSource() {
    return db.dataSource();
  }

  SimpleMeterRegistry meters() {
    return meters;
  }

  PaymentResource resource() {
    return resource;
  }

  Scenarios scenarios() {
    return scenarios;
  }

  Paydb paydb() {
    return paydb;
  }

  CapturedEvents events() {
    return events;
  }
}
