package dev.fencepost.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  @Test
  void aClassCompiledForANewerJavaIsReported(@TempDir Path dir) throws IOException {
    // A fixture's class file as javac wrote it for this build, then the same bytes marked as
    // Java 25's (major version 69), as a build without the release flag would write them.
    byte[] bytes;
    try (InputStream in =
        RulesCatchViolationsTest.class.getResourceAsStream(
            "/fixture/violations/owner/impl/Hidden.class")) {
      bytes = in.readAllBytes();
    }
    Path java17 = Files.createDirectories(dir.resolve("17/fixture/violations/owner/impl"));
    Files.write(java17.resolve("Hidden.class"), bytes);
    bytes[6] = 0;
    bytes[7] = 69;
    Path java25 = Files.createDirectories(dir.resolve("25/fixture/violations/owner/impl"));
    Files.write(java25.resolve("Hidden.class"), bytes);

    assertThat(
            ModuleRules.classFilesNewerThan(
                new ClassFileImporter().importPath(dir.resolve("25")),
                RulesCatchViolationsTest::module,
                Set.of("owner"),
                61))
        .containsExactly("fixture.violations.owner.impl.Hidden (class file version 69)");
    assertThat(
            ModuleRules.classFilesNewerThan(
                new ClassFileImporter().importPath(dir.resolve("17")),
                RulesCatchViolationsTest::module,
                Set.of("owner"),
                61))
        .isEmpty();
  }
}
