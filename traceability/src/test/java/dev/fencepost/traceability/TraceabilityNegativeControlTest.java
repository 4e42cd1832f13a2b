package dev.fencepost.traceability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check must be able to fail: each test builds a small repository of its own (a module with a
 * main class and a tagged test, a doc, the catalogue and the allow-list), breaks one thing, and
 * asserts that exactly that is reported. A clean fixture reports nothing.
 */
class TraceabilityNegativeControlTest {

  @TempDir Path root;

  @BeforeEach
  void aSmallRepositoryInOrder() throws IOException {
    write(
        "traceability/src/main/resources/requirements.tsv",
        """
        # fixture catalogue
        INV-01\tAt most one writer.
        FR-02\tTokens increase.
        NFR-14\tCost stays under a cap.
        """);
    write("traceability/src/main/resources/untested-allowed.tsv", "NFR-14\tNo cloud here.\n");
    write(
        "guard/src/main/java/x/Guard.java",
        "package x;\n/** The guard (INV-01, FR-02). */\nclass Guard {}\n");
    write(
        "guard/src/test/java/x/GuardTest.java",
        """
        package x;

        import org.junit.jupiter.api.Tag;
        import org.junit.jupiter.api.Test;

        @Tag("INV-01")
        class GuardTest {
          // @Tag("NFR-14") in a comment is not a tag: NFR-14 stays allowed as untested.
          @Test
          @Tag("FR-02")
          @Tag("slow")
          void tokensIncrease() {}
        }
        """);
    write("docs/guide.md", "# Guide\n\nINV-01 and FR-02 are explained in requirements.md.\n");
    Traceability.of(root).write();
  }

  @Test
  void aRepositoryInOrderHasNoProblems() throws IOException {
    assertThat(Traceability.of(root).problems()).isEmpty();
  }

  @Test
  void thePageListsTheImplementationAndTheTaggedClassAndMethod() throws IOException {
    String page = read("docs/requirements.md");
    assertThat(page)
        .contains(
            "| INV-01 | At most one writer. | `guard`: [Guard](../guard/src/main/java/x/Guard.java)"
                + " | `guard`: [GuardTest](../guard/src/test/java/x/GuardTest.java) |")
        .contains(
            "| FR-02 | Tokens increase. | `guard`: [Guard](../guard/src/main/java/x/Guard.java)"
                + " | `guard`: [GuardTest](../guard/src/test/java/x/GuardTest.java)"
                + " (tokensIncrease) |")
        .contains("| NFR-14 | Cost stays under a cap. | - | none: No cloud here. |");
  }

  @Test
  void aHandEditedPageIsStale() throws IOException {
    Path page = root.resolve("docs/requirements.md");
    Files.writeString(page, read("docs/requirements.md").replace("Tokens increase.", "Tokens."));

    assertThat(Traceability.of(root).problems())
        .containsExactly(
            "docs/requirements.md is stale: run docs/generate-requirements.sh and commit the"
                + " result");
  }

  @Test
  void aNewCitationMakesThePageStaleUntilItIsRegenerated() throws IOException {
    write("guard/src/main/java/x/Other.java", "package x;\n/** Also FR-02. */\nclass Other {}\n");

    assertThat(Traceability.of(root).stalePage()).hasSize(1);
    Traceability.of(root).write();
    assertThat(Traceability.of(root).problems()).isEmpty();
  }

  @Test
  void anIdCitedInTheDocsButNotCataloguedIsReported() throws IOException {
    write("docs/guide.md", "# Guide\n\nSee UC-09.\n");

    assertThat(Traceability.of(root).citedButNotCatalogued())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .startsWith("UC-09 is cited but not in traceability/src/main/resources/requirements.tsv")
        .endsWith("docs/guide.md");
  }

  @Test
  void aCataloguedIdWithoutATaggedTestIsReported() throws IOException {
    write(
        "guard/src/test/java/x/GuardTest.java",
        "package x;\n@org.junit.jupiter.api.Tag(\"INV-01\")\nclass GuardTest {}\n");

    assertThat(Traceability.of(root).untested())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .startsWith("FR-02 has no test tagged @Tag(\"FR-02\")");
  }

  @Test
  void anAllowListedIdThatGotATestMustLeaveTheAllowList() throws IOException {
    write(
        "guard/src/test/java/x/CostTest.java",
        "package x;\nclass CostTest {\n  @Tag(\"NFR-14\") void underTheCap() {}\n}\n");

    assertThat(Traceability.of(root).allowListProblems())
        .containsExactly(
            "NFR-14 has tagged tests now: remove it from"
                + " traceability/src/main/resources/untested-allowed.tsv so the page shows them");
  }

  @Test
  void aTagOnAFieldIsReported() throws IOException {
    write(
        "guard/src/test/java/x/FieldTest.java",
        "package x;\nclass FieldTest {\n  @Tag(\"FR-02\") int notATest = 1;\n}\n");

    assertThat(Traceability.of(root).problems())
        .contains(
            "guard/src/test/java/x/FieldTest.java: @Tag(\"FR-02\") annotates neither a type nor a"
                + " method");
  }

  private void write(String path, String text) throws IOException {
    Path file = root.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }

  private String read(String path) throws IOException {
    return Files.readString(root.resolve(path), StandardCharsets.UTF_8);
  }
}
