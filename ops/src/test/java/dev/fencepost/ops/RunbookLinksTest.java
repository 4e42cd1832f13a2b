package dev.fencepost.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every alert links a runbook that exists and names it, and every runbook lists exactly the alerts
 * that link it (ADR 0175); the procedures no alert links say {@code Alerts: none}. The negative
 * controls: an alert pointing at a missing runbook, one pointing at a runbook that does not name
 * it, and a runbook claiming an alert that does not link it, each reported.
 */
@Tag("NFR-10")
class RunbookLinksTest {

  private static final Path FIXTURES = Repository.ROOT.resolve("ops/src/test/resources/fixtures");

  @Test
  void everyAlertLinksAnExistingRunbookThatNamesItAndEveryRunbookNamesItsAlerts() {
    assertThat(RunbookLinks.problems(Repository.RULES, Repository.ROOT)).isEmpty();
    assertThat(RunbookLinks.runbooks(Repository.RUNBOOKS)).hasSizeGreaterThanOrEqualTo(15);
  }

  @Test
  void theBreakGlassAndRecoveryProceduresExist() {
    for (String procedure :
        List.of(
            "break-glass-revoke.md",
            "resolve-ambiguous-payout.md",
            "lock-backend-outage.md",
            "restore-lock-store.md",
            "fenced-out-write.md",
            "ledger-imbalance.md",
            "content-mismatch.md")) {
      assertThat(Repository.RUNBOOKS.resolve(procedure)).isRegularFile();
    }
  }

  @Test
  void negativeControlAnAlertPointingAtAMissingRunbookIsReported() {
    assertThat(
            RunbookLinks.problems(
                FIXTURES.resolve("alert-with-missing-runbook.yaml"), Repository.ROOT))
        .contains(
            "FencepostFixtureWithoutRunbook links runbooks/no-such-runbook.md, which does not"
                + " exist");
  }

  @Test
  void negativeControlAnAlertItsRunbookDoesNotNameIsReported() {
    assertThat(
            RunbookLinks.problems(
                FIXTURES.resolve("alert-not-named-by-its-runbook.yaml"), Repository.ROOT))
        .contains(
            "FencepostFixtureNamedNowhere links runbooks/lock-revoked.md, which does not name"
                + " it");
  }

  @Test
  void negativeControlARunbookClaimingAnAlertThatDoesNotLinkItIsReported(@TempDir Path root)
      throws IOException {
    Files.createDirectories(root.resolve("runbooks"));
    Files.writeString(
        root.resolve("runbooks/lock-revoked.md"),
        "# Lock revoked\n\nAlerts: `FencepostLockRevoked`, `FencepostSomethingElse`\n");
    Path rules = root.resolve("rules.yaml");
    Files.writeString(
        rules,
        """
        groups:
          - name: fixture
            rules:
              - alert: FencepostLockRevoked
                expr: vector(1)
                labels:
                  severity: ticket
                annotations:
                  runbook_url: runbooks/lock-revoked.md
        """);
    assertThat(RunbookLinks.problems(rules, root))
        .containsExactly(
            "runbooks/lock-revoked.md lists alerts [FencepostLockRevoked, FencepostSomethingElse]"
                + " but is linked by [FencepostLockRevoked]");
  }
}
