package dev.fencepost.deploy.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.LintResult;
import org.junit.jupiter.api.Test;

class ChartLintTest {

  @Test
  void chartLintsCleanInStrictMode() {
    LintResult result = HelmChart.lintStrict();

    assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
    assertThat(result.getMessages())
        .noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
  }
}
