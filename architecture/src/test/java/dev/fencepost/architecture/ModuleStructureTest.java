package dev.fencepost.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The module structure, checked on the compiled main classes of every module. */
@Tag("NFR-16")
class ModuleStructureTest {

  private static JavaClasses classes;
  private static Map<String, Set<String>> graph;

  @BeforeAll
  static void importEveryModule() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.fencepost");
    graph = ModuleRules.moduleGraph(classes, Modules::of);
  }

  @Test
  void everyModuleIsImported() {
    assertThat(graph.keySet()).containsAll(Modules.SHIPPED).contains("experiments", "bench");
  }

  @Test
  void lockApiDependsOnNothingButTheJdk() {
    assertThat(ModuleRules.dependenciesBeyondTheJdk(classes, Modules::of, "lock-api")).isEmpty();
  }

  @Test
  void implPackagesAreUsedOnlyInsideTheirOwnModule() {
    assertThat(ModuleRules.implUsedOutsideItsModule(classes, Modules::of)).isEmpty();
  }

  @Test
  void theModulesFormNoCycle() {
    assertThat(ModuleRules.cycles(graph)).isEmpty();
  }

  @Test
  void noApplicationDependsOnAnother() {
    assertThat(ModuleRules.edgesAmong(graph, Modules.APPLICATIONS)).isEmpty();
  }

  @Test
  void historyCheckerSharesNoCodeWithWhatItChecks() {
    assertThat(graph.get("history-checker")).isEmpty();
    graph.forEach(
        (module, uses) -> {
          if (Modules.SHIPPED.contains(module)) {
            assertThat(uses).as(module).doesNotContain("history-checker");
          }
        });
  }

  @Test
  void noShippedModuleReachesForTestCode() {
    assertThat(
            ModuleRules.reachesFor(
                classes,
                Modules::of,
                Modules.SHIPPED,
                List.of(
                    "org.junit.",
                    "org.assertj.",
                    "org.awaitility.",
                    "org.mockito.",
                    "com.github.tomakehurst.",
                    "dev.fencepost.testsupport.",
                    "dev.fencepost.payment.testkit.")))
        .isEmpty();
  }

  /**
   * The build runs on JDK 25 (ADR 0230) but compiles for Java 17: the lock starter and the lock API
   * are libraries that Java 17 applications take, and javac's release flag is what keeps their
   * class files and the JDK API they call at 17.
   */
  @Test
  void everyShippedClassRunsOnJava17() {
    assertThat(ModuleRules.classFilesNewerThan(classes, Modules::of, Modules.SHIPPED, 61))
        .isEmpty();
  }
}
