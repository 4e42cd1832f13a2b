package dev.fencepost.experiments.gameday;

import dev.fencepost.experiments.harness.EvidenceAfterAllPassed;
import dev.fencepost.experiments.harness.Settings;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;

/**
 * The game days of this test JVM across their classes, and the one report they make together
 * (docs/evidence/game-days.md). Each class records its game days here as their assertions pass and,
 * through {@link #evidence}, says when every one of its tests of this tier passed; once every class
 * of {@link #CLASSES} that has a test in this tier has said so, whichever finished last writes the
 * report, in the order of {@link #CLASSES} (and within a class, its {@code @Order}). A class run
 * alone, or one with a failed test, writes nothing: the report never shows part of a tier as if it
 * were the whole. Failsafe runs every class of the module in one JVM (forkCount 1), so these
 * statics are shared by all of them.
 */
final class GameDayRegistry {

  /** Every game-day class, in the report's order. */
  static final List<Class<?>> CLASSES =
      List.of(
          GameDaysGuardsIT.class,
          GameDaysLockServiceIT.class,
          GameDaysReconciliationIT.class,
          GameDaysPayoutsIT.class,
          GameDaysDashboardsIT.class);

  private static final Map<Class<?>, List<GameDay>> DAYS = new LinkedHashMap<>();
  private static final Set<Class<?>> PASSED = new LinkedHashSet<>();
  private static int dashboardQueries = -1;
  private static int metricNames = -1;

  private GameDayRegistry() {}

  /** The list a class adds its game days to, once each has passed its assertions. */
  static synchronized List<GameDay> days(Class<?> testClass) {
    requireListed(testClass);
    return DAYS.computeIfAbsent(testClass, c -> Collections.synchronizedList(new Logged(c)));
  }

  /** The extension a game-day class registers: it reports the class passed, all its tests. */
  static EvidenceAfterAllPassed evidence(Class<?> testClass) {
    requireListed(testClass);
    return new EvidenceAfterAllPassed(testsInTier(testClass), () -> passed(testClass));
  }

  /** What the dashboards' check found, for the report's header. */
  static synchronized void dashboardsChecked(int queries, int names) {
    dashboardQueries = queries;
    metricNames = names;
  }

  /**
   * The {@code @Test} methods of {@code testClass} this tier runs: all of them in the long tier,
   * else those not tagged {@code long} (what the test command's failsafe runs).
   */
  static int testsInTier(Class<?> testClass) {
    List<Method> tests =
        AnnotationSupport.findAnnotatedMethods(
            testClass, Test.class, HierarchyTraversalMode.TOP_DOWN);
    return (int) tests.stream().filter(m -> Settings.longTier() || !taggedLong(m)).count();
  }

  private static boolean taggedLong(Method m) {
    return Arrays.stream(m.getAnnotationsByType(Tag.class)).anyMatch(t -> t.value().equals("long"))
        || Arrays.stream(m.getDeclaringClass().getAnnotationsByType(Tag.class))
            .anyMatch(t -> t.value().equals("long"));
  }

  /** The classes with at least one test in this tier: the ones the report waits for. */
  static List<Class<?>> classesInTier() {
    return CLASSES.stream().filter(c -> testsInTier(c) > 0).toList();
  }

  private static synchronized void passed(Class<?> testClass) {
    PASSED.add(testClass);
    List<Class<?>> waiting = classesInTier().stream().filter(c -> !PASSED.contains(c)).toList();
    if (!waiting.isEmpty()) {
      System.err.println(
          testClass.getSimpleName()
              + ": every game day passed; docs/evidence/game-days.md waits for "
              + waiting.stream().map(Class::getSimpleName).toList()
              + " (written once every game-day class of this tier has passed in this JVM)");
      return;
    }
    List<GameDay> all = new ArrayList<>();
    for (Class<?> c : CLASSES) {
      all.addAll(DAYS.getOrDefault(c, List.of()));
    }
    for (GameDay d : all) {
      if (!d.complete()) {
        throw new IllegalStateException(
            "game day \""
                + d.title()
                + "\" recorded without its injection, detection, steps or recovery");
      }
    }
    if (dashboardQueries < 0) {
      throw new IllegalStateException("the dashboards' check did not record what it checked");
    }
    GameDayReport.write(all, Settings.longTier(), dashboardQueries, metricNames, classesInTier());
  }

  /**
   * A class's game days, each also printed as it is recorded: what a run measured is in its log
   * even when the report is not written (a class run alone, or a later failure).
   */
  private static final class Logged extends ArrayList<GameDay> {
    private final Class<?> testClass;

    Logged(Class<?> testClass) {
      this.testClass = testClass;
    }

    @Override
    public boolean add(GameDay d) {
      String detected =
          d.isProcedure()
              ? "a procedure, no alert"
              : d.latency()
                  .map(l -> d.alert() + " fired after " + GameDays.seconds(l))
                  .orElseGet(
                      () ->
                          d.alert()
                              + " pending after "
                              + GameDays.seconds(d.pendingLatency().orElseThrow())
                              + " (firing not awaited)");
      System.out.println(
          "game day passed ("
              + testClass.getSimpleName()
              + "): "
              + d.title()
              + ": "
              + detected
              + "; "
              + d.steps().size()
              + " runbook steps; "
              + d.recovery());
      return super.add(d);
    }
  }

  private static void requireListed(Class<?> testClass) {
    if (!CLASSES.contains(testClass)) {
      throw new IllegalStateException(
          testClass.getSimpleName()
              + " is not in GameDayRegistry.CLASSES: its game days would be"
              + " left out of the report");
    }
  }
}
