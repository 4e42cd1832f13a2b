package dev.fencepost.experiments.mutation;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * docs/evidence/nfr-07.md names, for every invariant, the test that breaks it and the check that
 * catches it. A renamed or deleted test would leave the table claiming evidence that no longer
 * exists; this test fails instead.
 */
@Tag("NFR-07")
class Nfr07TableTest {

  /**
   * {@code `ClassName#methodName`}, the form the table uses for every check it names, or {@code
   * `ClassName#methodName[case]`} for one case of a parameterized test, where the case is the
   * scenario id the test's source declares (and its display name starts with).
   */
  static final Pattern REFERENCE =
      Pattern.compile("`([A-Z][A-Za-z0-9_]*)#([a-z][A-Za-z0-9_]*)(?:\\[([a-z0-9-]+)\\])?`");

  static final Path REPO = Path.of("").toAbsolutePath().getParent();
  static final Path TABLE = REPO.resolve("docs/evidence/nfr-07.md");

  @Test
  void everyTestTheTableNamesExistsWithThatMethod() throws IOException {
    String table = Files.readString(TABLE);
    assertThat(REFERENCE.matcher(table).results().count())
        .as("references in " + TABLE)
        .isGreaterThanOrEqualTo(8);
    assertThat(missing(table)).as("tests named in " + TABLE + " that do not exist").isEmpty();
  }

  @Test
  void aRenamedMethodOrAMissingCaseIsReportedAndAnExistingCaseIsNot() throws IOException {
    assertThat(
            missing(
                "`Uc03PausedHolderIT#negativeControlMatrix[uc03-b-fence-off]`,"
                    + " `Uc03PausedHolderIT#negativeControlMatrix[uc03-z-no-such-cell]`,"
                    + " `Uc03PausedHolderIT#bResourceFenceOffTheStaleHolderPostsThePayout`"))
        .containsExactly(
            "Uc03PausedHolderIT#negativeControlMatrix[uc03-z-no-such-cell] (no such case)",
            "Uc03PausedHolderIT#bResourceFenceOffTheStaleHolderPostsThePayout (no such method)");
  }

  /** The references in {@code table} to a class, method or case that does not exist. */
  static List<String> missing(String table) throws IOException {
    List<String> missing = new ArrayList<>();
    Map<String, List<Path>> sources = javaSourcesBySimpleName();
    Matcher m = REFERENCE.matcher(table);
    while (m.find()) {
      String type = m.group(1);
      String method = m.group(2);
      String testCase = m.group(3);
      List<Path> files = sources.getOrDefault(type, List.of());
      if (files.isEmpty()) {
        missing.add(type + " (no such class)");
      } else if (files.stream().noneMatch(f -> declares(f, method))) {
        missing.add(type + "#" + method + " (no such method)");
      } else if (testCase != null && files.stream().noneMatch(f -> declaresCase(f, testCase))) {
        missing.add(type + "#" + method + "[" + testCase + "] (no such case)");
      }
    }
    return missing;
  }

  @Test
  void everyInvariantHasARowNamingAtLeastOneCheck() throws IOException {
    List<String> rows =
        Files.readAllLines(TABLE).stream().filter(l -> l.startsWith("| INV-0")).toList();
    for (int i = 1; i <= 8; i++) {
      String inv = "| INV-0" + i;
      assertThat(rows)
          .as("a row for INV-0" + i + " that names a test")
          .anySatisfy(
              row -> {
                assertThat(row).startsWith(inv);
                assertThat(REFERENCE.matcher(row).find()).isTrue();
              });
    }
  }

  static boolean declares(Path file, String method) {
    try {
      return Pattern.compile("\\bvoid\\s+" + method + "\\s*\\(")
          .matcher(Files.readString(file))
          .find();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The source names {@code testCase} as a string literal: a case's scenario id. */
  static boolean declaresCase(Path file, String testCase) {
    try {
      return Files.readString(file).contains("\"" + testCase + "\"");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every module's src/ tree (not target/), by simple class name. */
  static Map<String, List<Path>> javaSourcesBySimpleName() throws IOException {
    Map<String, List<Path>> byName = new HashMap<>();
    try (Stream<Path> modules = Files.list(REPO)) {
      for (Path module : modules.filter(d -> Files.isDirectory(d.resolve("src"))).toList()) {
        try (Stream<Path> files = Files.walk(module.resolve("src"))) {
          files
              .filter(f -> f.toString().endsWith(".java"))
              .forEach(
                  f -> {
                    String name = f.getFileName().toString();
                    byName
                        .computeIfAbsent(
                            name.substring(0, name.length() - ".java".length()),
                            k -> new ArrayList<>())
                        .add(f);
                  });
        }
      }
    }
    return byName;
  }
}
