package dev.fencepost.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.payment.Payout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rail's evidence is its camt.053 statement (ADR 0176), read through a {@link StatementSource}:
 * over HTTP from the rail, or from the files a bank drops in a directory. Both find the same
 * movements; a statement sent twice counts each entry once; a file that is not a statement fails
 * the run instead of being taken for a rail that moved nothing.
 */
@Tag("UC-07")
class StatementSourceTest extends ReconciliationTestBase {

  @TempDir Path drop;

  @Test
  @Tag("INV-07")
  void aStatementFileDropFindsWhatTheRailsOwnStatementFindsAndCountsARepeatedFileOnce()
      throws Exception {
    Payout bypassed = world.pending();
    world.railPost(bypassed.clientReference(), bypassed.amountMinor(), bypassed.beneficiaryRef());
    world.execute(world.pending(), World.Until.POSTED);
    ReconciliationWindow window = world.window();
    String xml = world.statementXml(window);
    // The bank re-sends the same statement under another name: one entry per entry reference.
    Files.writeString(drop.resolve("statement-1.xml"), xml);
    Files.writeString(drop.resolve("statement-1-resent.xml"), xml);
    Files.writeString(drop.resolve("README.txt"), "not a statement, not an .xml file");

    ReconciliationReport fromFiles =
        world
            .reconciler(world.settings(), new DirectoryStatementSource(drop, 1))
            .run(window, "test");

    DetectionTest.assertOnly(fromFiles, Map.of(Discrepancy.RAIL_MOVEMENT_WITHOUT_SUBMISSION, 1L));
    assertThat(fromFiles.findings())
        .extracting(Finding::subject)
        .containsExactly(bypassed.id().toString());
    ReconciliationReport fromRail = world.reconciler(world.settings()).run(window, "test");
    assertThat(fromRail.counts()).isEqualTo(fromFiles.counts());
    assertThat(
            world
                .sql
                .sql("SELECT count(*) FROM reconciliation_statement_entry")
                .query(Long.class)
                .single())
        .isEqualTo(2L);
  }

  @Test
  void aFileInTheDropThatIsNotACamt053FailsTheRunAndSaysSo() throws Exception {
    Files.writeString(drop.resolve("statement.xml"), "<Document><Nothing/></Document>");
    Reconciler reconciler =
        world.reconciler(world.settings(), new DirectoryStatementSource(drop, 500));

    assertThatThrownBy(() -> reconciler.run(world.window(), "test"))
        .isInstanceOf(SourceUnavailableException.class)
        .hasMessageContaining("statement.xml");
    assertThat(world.sql.sql("SELECT status FROM reconciliation_run").query(String.class).single())
        .isEqualTo("FAILED");
  }
}
