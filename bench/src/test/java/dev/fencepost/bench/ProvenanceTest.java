package dev.fencepost.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a report says about the commit it measured and the machine's load. */
class ProvenanceTest {

  @Test
  void aCleanTreeIsNamedByItsCommitAlone() {
    assertThat(Provenance.describe("abc123\n", "")).isEqualTo("abc123");
  }

  @Test
  void aDirtyTreeSaysSoAndNamesWhatChanged() {
    assertThat(Provenance.describe("abc123\n", " M bench/run-lock-bench.sh\n?? notes.txt\n"))
        .isEqualTo("abc123 (dirty: bench/run-lock-bench.sh, notes.txt)");
  }

  @Test
  void aVeryDirtyTreeNamesFivePathsAndSaysThereAreMore() {
    String porcelain = " M a\n M b\n M c\n M d\n M e\n M f\n";
    assertThat(Provenance.describe("abc123", porcelain))
        .isEqualTo("abc123 (dirty: a, b, c, d, e, ...)");
  }

  @Test
  void withoutGitTheCommitIsUnknown() {
    assertThat(Provenance.describe(null, null)).isEqualTo("unknown");
  }

  @Test
  void theLoadAverageIsTheFirstThreeFieldsOfProcLoadavg() {
    assertThat(Provenance.loadAverage("0.52 0.58 0.59 1/123 4567\n")).isEqualTo("0.52 0.58 0.59");
    assertThat(Provenance.loadAverage("")).isEqualTo("?");
  }
}
