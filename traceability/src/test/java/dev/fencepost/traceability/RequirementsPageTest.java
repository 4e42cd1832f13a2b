package dev.fencepost.traceability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The check on this repository itself: docs/requirements.md is what the generator writes, every
 * requirement ID cited anywhere is explained in the catalogue, and every catalogued ID is verified
 * by a test tagged with it or has a reviewed reason in the allow-list. Each failure message says
 * what to do; the usual one is to run docs/generate-requirements.sh and commit the page.
 */
class RequirementsPageTest {

  private static Traceability repository;

  @BeforeAll
  static void scanTheRepository() throws Exception {
    String root = System.getProperty("fencepost.root", "..");
    repository = Traceability.of(Path.of(root).toAbsolutePath().normalize());
  }

  @Test
  void theCommittedPageIsWhatTheGeneratorWrites() throws Exception {
    assertThat(repository.stalePage()).isEmpty();
  }

  @Test
  void everyCitedIdIsExplainedInTheCatalogue() {
    assertThat(repository.citedButNotCatalogued()).isEmpty();
  }

  @Test
  void everyCataloguedIdHasATaggedTestOrAReviewedReasonWhyNot() {
    assertThat(repository.untested()).isEmpty();
  }

  @Test
  void theAllowListNamesOnlyCataloguedIdsThatReallyHaveNoTest() {
    assertThat(repository.allowListProblems()).isEmpty();
  }

  @Test
  void everyTagAnnotatesATestClassOrMethod() throws Exception {
    assertThat(repository.problems()).filteredOn(p -> p.contains("annotates neither")).isEmpty();
  }
}
