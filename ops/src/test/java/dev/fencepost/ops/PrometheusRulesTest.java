package dev.fencepost.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The alert rules (ops/prometheus/fencepost-rules.yaml) as Prometheus itself reads them: promtool
 * accepts the file, every unit test in ops/prometheus/tests passes, every alert has a unit test in
 * which it fires and one in which it does not, and every alert tells a person what it means and
 * where its runbook is (ADR 0175). The negative controls run promtool on a broken rule file and on
 * a unit test with a wrong expectation: both must fail, so a passing run means something.
 */
@Tag("NFR-10")
@Tag("NFR-02")
class PrometheusRulesTest {

  private static final Path FIXTURES = Repository.ROOT.resolve("ops/src/test/resources/fixtures");

  @Test
  void promtoolAcceptsTheRuleFile() {
    Promtool.Run run = Promtool.checkRules(Repository.RULES);
    assertThat(run.succeeded()).as(run.describe()).isTrue();
    assertThat(run.output()).contains("SUCCESS");
  }

  @Test
  void everyPromtoolUnitTestPasses() {
    List<Path> tests = ruleTests();
    assertThat(tests).isNotEmpty();
    Promtool.Run run = Promtool.testRules(tests);
    assertThat(run.succeeded()).as(run.describe()).isTrue();
  }

  @Test
  void everyAlertHasAUnitTestInWhichItFiresAndOneInWhichItDoesNot() {
    Set<String> fires = new TreeSet<>();
    Set<String> quiet = new TreeSet<>();
    for (Path file : ruleTests()) {
      for (Map<String, Object> test : list(map(Repository.yaml(file)).get("tests"))) {
        for (Map<String, Object> alertTest : list(test.get("alert_rule_test"))) {
          String name = (String) alertTest.get("alertname");
          List<Map<String, Object>> expected = list(alertTest.get("exp_alerts"));
          if (expected.isEmpty()) {
            quiet.add(name);
            continue;
          }
          fires.add(name);
          for (Map<String, Object> alert : expected) {
            assertThat(map(alert.get("exp_labels")))
                .as("%s in %s: expected labels", name, file)
                .containsKey("severity");
            assertThat(map(alert.get("exp_annotations")))
                .as("%s in %s: expected annotations", name, file)
                .containsKeys("summary", "description", "runbook_url");
          }
        }
      }
    }
    Set<String> alerts = new TreeSet<>();
    Repository.alerts(Repository.RULES).forEach(a -> alerts.add(a.name()));
    assertThat(fires).as("alerts with a firing test").containsAll(alerts);
    assertThat(quiet).as("alerts with a not-firing test").containsAll(alerts);
  }

  @Test
  void everyAlertHasASeverityASummaryADescriptionAndARunbook() {
    List<Repository.Alert> alerts = Repository.alerts(Repository.RULES);
    assertThat(alerts).hasSizeGreaterThanOrEqualTo(15);
    for (Repository.Alert alert : alerts) {
      assertThat(alert.name()).matches("Fencepost[A-Z][A-Za-z0-9]+");
      assertThat(alert.labels().get("severity")).as(alert.name()).isIn("page", "ticket");
      assertThat(alert.annotations().get("summary")).as(alert.name()).isNotBlank();
      assertThat(alert.annotations().get("description")).as(alert.name()).hasSizeGreaterThan(80);
      assertThat(alert.annotations().get("runbook_url"))
          .as(alert.name())
          .matches(RunbookLinks.LINK);
    }
  }

  /**
   * The names the rules use are the names the applications export: each is in docs/operations.md's
   * metrics table, which lists them from the code (and the modules' scrape tests check the new ones
   * against a real Prometheus scrape).
   */
  @Test
  void everyMetricARuleUsesIsADocumentedExportedMetric() throws IOException {
    String rules = Files.readString(Repository.RULES);
    String operations = Files.readString(Repository.ROOT.resolve("docs/operations.md"));
    Set<String> documented = new TreeSet<>();
    Matcher row = Pattern.compile("(?m)^\\| `(fencepost_[a-z_]+)`").matcher(operations);
    while (row.find()) {
      documented.add(row.group(1));
    }
    Set<String> used = new TreeSet<>();
    Matcher name = Pattern.compile("\\b(fencepost_[a-z_]+)").matcher(rules);
    while (name.find()) {
      used.add(exported(name.group(1)));
    }
    assertThat(used).isNotEmpty();
    assertThat(documented).containsAll(used);
  }

  /** A timer's series are {@code <name>_seconds_count} and so on; the table lists the base. */
  private static String exported(String series) {
    for (String suffix : List.of("_seconds_count", "_seconds_sum", "_seconds_max")) {
      if (series.endsWith(suffix)) {
        return series.substring(0, series.length() - suffix.length()) + "_seconds";
      }
    }
    return series;
  }

  @Test
  void negativeControlPromtoolRefusesABrokenRuleFile() {
    Promtool.Run run = Promtool.checkRules(FIXTURES.resolve("broken-rules.yaml"));
    assertThat(run.succeeded()).as(run.describe()).isFalse();
  }

  @Test
  void negativeControlAUnitTestWithAWrongExpectationFails() {
    Promtool.Run run = Promtool.testRules(List.of(FIXTURES.resolve("wrong-expectation-test.yaml")));
    assertThat(run.succeeded()).as(run.describe()).isFalse();
    assertThat(run.output()).contains("FencepostLockRevoked");
  }

  private static List<Path> ruleTests() {
    try (Stream<Path> files = Files.list(Repository.RULE_TESTS)) {
      return new ArrayList<>(
          files.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted().toList());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return value == null ? Map.of() : (Map<String, Object>) value;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Object value) {
    return value == null ? List.of() : (List<Map<String, Object>>) value;
  }
}
