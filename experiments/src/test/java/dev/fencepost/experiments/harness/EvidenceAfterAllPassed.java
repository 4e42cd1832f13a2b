package dev.fencepost.experiments.harness;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;

/**
 * Writes a test class's evidence report after all its tests, and only when every one of them ran
 * and passed: a report never shows a run whose assertions failed, and never leaves one out silently
 * (a class run in part writes nothing). The class records a run's outcome for the report only after
 * that run's assertions.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final EvidenceAfterAllPassed EVIDENCE =
 *     new EvidenceAfterAllPassed(Cell.values().length, () -> Report.write(RESULTS));
 * }</pre>
 */
public final class EvidenceAfterAllPassed implements TestWatcher, AfterAllCallback {

  private final int expected;
  private final Runnable write;
  private final AtomicInteger passed = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();

  /**
   * @param expected how many tests (parameterized invocations counted one by one) the class runs
   * @param write writes the report
   */
  public EvidenceAfterAllPassed(int expected, Runnable write) {
    this.expected = expected;
    this.write = write;
  }

  /** The {@code @Test} methods of {@code testClass}, for a class without parameterized tests. */
  public static int testMethodsOf(Class<?> testClass) {
    return AnnotationSupport.findAnnotatedMethods(
            testClass, Test.class, HierarchyTraversalMode.TOP_DOWN)
        .size();
  }

  @Override
  public void testSuccessful(ExtensionContext context) {
    passed.incrementAndGet();
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    failed.incrementAndGet();
  }

  @Override
  public void testAborted(ExtensionContext context, Throwable cause) {
    failed.incrementAndGet();
  }

  @Override
  public void testDisabled(ExtensionContext context, Optional<String> reason) {
    failed.incrementAndGet();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (context.getRequiredTestClass().isAnnotationPresent(Nested.class)) {
      return;
    }
    if (failed.get() == 0 && passed.get() == expected) {
      write.run();
    } else {
      System.err.println(
          context.getRequiredTestClass().getSimpleName()
              + ": evidence report not written: "
              + passed.get()
              + " of "
              + expected
              + " tests passed, "
              + failed.get()
              + " did not");
    }
  }
}
