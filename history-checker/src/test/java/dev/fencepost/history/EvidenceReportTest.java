package dev.fencepost.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.history.Records.RailMovement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvidenceReportTest {

  @TempDir Path dir;

  @Test
  void aReportNamesItsRegenerationCommandFirstThenScenariosAndTheNegativeControlMatrix()
      throws Exception {
    CheckReport fencingOn = new Checker().check(Histories.clean());
    History doubled = Histories.clean();
    doubled.add(new RailMovement("rail-stub", "fp-p1", "rr-2", 2_500L, null));
    CheckReport bothGuardsOff = new Checker().check(doubled);
    Map<String, CheckReport> cells = EvidenceReport.cells();
    cells.put("fencing on", fencingOn);
    cells.put("high-water and uniqueness off", bothGuardsOff);

    EvidenceReport.titled("UC-03: a worker paused past its lease")
        .regeneratedBy("./mvnw -B -pl scenarios verify -Dscenario=uc03")
        .paragraph("W1 is SIGSTOPped after its claim; W2 takes over.")
        .scenario("fencing on", fencingOn, "uc03-fencing-on.svg")
        .matrix(
            "Negative controls (ADRs 0035 and 0043)",
            cells,
            List.of("duplicate_rail_movement", "multiple_postings"))
        .write(dir.resolve("evidence/uc03.md"));

    List<String> lines = Files.readAllLines(dir.resolve("evidence/uc03.md"));
    assertThat(lines.get(0)).isEqualTo("# UC-03: a worker paused past its lease");
    assertThat(lines.subList(1, 6)).contains("./mvnw -B -pl scenarios verify -Dscenario=uc03");
    assertThat(lines)
        .contains("## fencing on")
        .contains("![Timeline of fencing on](uc03-fencing-on.svg)")
        .contains("| fencing on | 0 | 0 | safe |")
        .contains("| high-water and uniqueness off | 1 | 0 | **violated** |");
  }
}
