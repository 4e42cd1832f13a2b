package dev.fencepost.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Negative controls: each rule, run on fixture classes that break it on purpose (modules "owner"
 * and "user" under {@code fixture.violations}), reports the break.
 */
class RulesCatchViolationsTest {

  private static final JavaClasses FIXTURES =
      new ClassFileImporter().importPackages("fixture.violations");

  private static String module(JavaClass c) {
    String[] parts = c.getPackageName().split("\\.");
    return c.getName().startsWith("fixture.violations.") ? parts[2] : null;
  }

  @Test
  void anImplClassUsedFromAnotherModuleIsReported() {
    assertThat(ModuleRules.implUsedOutsideItsModule(FIXTURES, RulesCatchViolationsTest::module))
        .anyMatch(v -> v.startsWith("user -> owner") && v.contains("Hidden"));
  }

  @Test
  void aCycleBetweenModulesIsReported() {
    Map<String, Set<String>> graph =
        ModuleRules.moduleGraph(FIXTURES, RulesCatchViolationsTest::module);
    assertThat(ModuleRules.cycles(graph)).isNotEmpty();
    assertThat(ModuleRules.edgesAmong(graph, Set.of("owner", "user")))
        .contains("owner -> user", "user -> owner");
  }

  @Test
  void aDependencyBeyondTheJdkIsReported() {
    assertThat(
            ModuleRules.dependenciesBeyondTheJdk(
                FIXTURES, RulesCatchViolationsTest::module, "user"))
        .anyMatch(v -> v.contains("org.junit.jupiter.api.Assertions"))
        .anyMatch(v -> v.contains("Hidden"));
  }

  @Test
  void reachingForTestCodeIsReported() {
    assertThat(
            ModuleRules.reachesFor(
                FIXTURES, RulesCatchViolationsTest::module, Set.of("user"), List.of("org.junit.")))
        .anyMatch(v -> v.contains("Assertions"));
  }
}
