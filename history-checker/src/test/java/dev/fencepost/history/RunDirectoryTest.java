package dev.fencepost.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.history.Records.RailMovement;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class RunDirectoryTest {

  @TempDir Path dir;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int cli(String... args) {
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void aHistoryWrittenToARunDirectoryReadsBackRecordForRecord() {
    History written = Histories.clean();
    HistoryFiles.write(dir, written);

    History read = HistoryFiles.read(dir);

    for (Class<?> type : Records.TYPES.keySet()) {
      assertThat(read.listFor(type)).as(Records.TYPES.get(type)).isEqualTo(written.listFor(type));
    }
    assertThat(dir.resolve("grant.jsonl")).exists();
    assertThat(dir.resolve("client_op.jsonl")).exists();
  }

  @Test
  void aGrantsEpochIsWrittenOnlyWhenPresentAndReadBack() throws Exception {
    Records.Grant restored =
        new Records.Grant("lockdb", "payout:a", 9L, "ACQUIRED", "s", 4L, null, 1);
    Records.Grant plain = new Records.Grant("lockdb", "payout:a", 3L, "ACQUIRED", "s", 1L, null);
    HistoryFiles.append(dir, List.of(plain, restored));

    assertThat(Files.readAllLines(dir.resolve("grant.jsonl")))
        .containsExactly(
            "{\"source\":\"lockdb\",\"key\":\"payout:a\",\"token\":3,\"kind\":\"ACQUIRED\","
                + "\"session\":\"s\",\"seq\":1}",
            "{\"source\":\"lockdb\",\"key\":\"payout:a\",\"token\":9,\"kind\":\"ACQUIRED\","
                + "\"session\":\"s\",\"seq\":4,\"epoch\":1}");
    assertThat(HistoryFiles.read(dir).grants).containsExactly(plain, restored);
  }

  @Test
  void appendedRecordsLandInTheirTypesFileOneLineEach() throws Exception {
    HistoryFiles.append(
        dir,
        List.of(
            new RailMovement("rail-stub", "fp-a", "rr-1", null, null),
            new RailMovement("rail-stub", "fp-b", "rr-2", null, null)));

    assertThat(Files.readAllLines(dir.resolve("rail_movement.jsonl")))
        .containsExactly(
            "{\"source\":\"rail-stub\",\"clientReference\":\"fp-a\",\"railReference\":\"rr-1\"}",
            "{\"source\":\"rail-stub\",\"clientReference\":\"fp-b\",\"railReference\":\"rr-2\"}");
  }

  @Test
  void unknownFieldsAreIgnoredAndBlankLinesSkipped() throws Exception {
    Files.writeString(
        dir.resolve("account.jsonl"),
        "{\"source\":\"paydb\",\"id\":\"a\",\"balance\":0,\"fence\":3,\"kind\":\"CUSTOMER\"}\n\n");

    assertThat(HistoryFiles.read(dir).accounts)
        .containsExactly(new Records.Account("paydb", "a", 0L, 3L));
  }

  @Test
  void aMalformedLineIsRejectedNamingTheFileAndTheLine() throws Exception {
    Files.writeString(
        dir.resolve("grant.jsonl"),
        "{\"source\":\"lockdb\",\"key\":\"payout:a\",\"token\":1,\"kind\":\"ACQUIRED\",\"seq\":1}\n"
            + "{\"source\":\"lockdb\",\"key\":\"payout:a\",\"token\":\n");

    assertThatThrownBy(() -> HistoryFiles.read(dir))
        .isInstanceOf(HistoryFormatException.class)
        .hasMessageContaining("grant.jsonl:2:")
        .hasMessageContaining("not a valid grant record");
  }

  @Test
  void aRecordMissingARequiredFieldIsRejectedNamingTheField() throws Exception {
    Files.writeString(
        dir.resolve("client_op.jsonl"),
        "{\"source\":\"w1\",\"worker\":\"w1\",\"op\":\"ACQUIRE\",\"key\":\"k\","
            + "\"invokeNanos\":1,\"completeNanos\":2,\"outcome\":\"OK\"}\n");

    assertThatThrownBy(() -> HistoryFiles.read(dir))
        .isInstanceOf(HistoryFormatException.class)
        .hasMessageContaining("client_op.jsonl:1:")
        .hasMessageContaining("token is required when outcome is OK");
  }

  @Test
  void anUnknownEnumValueIsRejectedListingTheAllowedOnes() throws Exception {
    Files.writeString(
        dir.resolve("payout.jsonl"),
        "{\"source\":\"paydb\",\"id\":\"p\",\"account\":\"a\",\"state\":\"DONE\","
            + "\"clientReference\":\"fp-p\"}\n");

    assertThatThrownBy(() -> HistoryFiles.read(dir))
        .hasMessageContaining("payout.jsonl:1:")
        .hasMessageContaining("state must be one of");
  }

  @Test
  void eachWriterHasItsOwnFilesAndTheReaderMergesThem() {
    try (HistoryRecorder w1 = HistoryRecorder.open(dir, "w1");
        HistoryRecorder w2 = HistoryRecorder.open(dir, "w2")) {
      w1.record(Histories.op("w1", "ACQUIRE", 5L, 0, 2, "OK"));
      w2.record(Histories.op("w2", "ACQUIRE", 7L, 3_900, 4_002, "OK"));
      w2.record(Histories.effect("w2", "CLAIM", 7, "OK", 4_010));
    }

    History read = HistoryFiles.read(dir);

    assertThat(dir.resolve("client_op.w1.jsonl")).exists();
    assertThat(dir.resolve("client_op.w2.jsonl")).exists();
    assertThat(read.clientOps).extracting(Records.ClientOp::worker).containsExactly("w1", "w2");
    assertThat(read.effects).hasSize(1);
  }

  @Test
  void aLastLineTornByAKilledWriterIsDroppedAndCountedNotGuessed() throws Exception {
    HistoryFiles.write(dir, Histories.clean());
    Files.writeString(
        dir.resolve("effect.w1.jsonl"),
        HistoryFiles.toLine(Histories.effect("w1", "CLAIM", 5, "OK", 10))
            + "\n{\"source\":\"w1\",\"worker\":\"w1\",\"payo");

    History read = HistoryFiles.read(dir);

    assertThat(read.effects).hasSize(Histories.clean().effects.size() + 1);
    assertThat(read.tornLines).containsExactly("effect.w1.jsonl:2");
    assertThat(new Checker().check(read).liveness().get("torn_lines"))
        .isEqualTo(List.of("effect.w1.jsonl:2"));
  }

  @Test
  void theCliExitsZeroOnACleanRunAndWritesTheReportAndTheTimeline() {
    HistoryFiles.write(dir, Histories.clean());

    assertThat(cli(dir.toString())).isEqualTo(Main.SAFE);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("Verdict: **SAFE**")
        .contains("| `overlapping_grants` | 0 |");
    assertThat(dir.resolve("check-report.json")).exists();
    assertThat(dir.resolve("check-report.md")).exists();
    assertThat(dir.resolve("timeline.svg")).exists();
  }

  @Test
  void theCliExitsOneWhenAnySafetyCounterIsNotZero() throws Exception {
    History broken = Histories.clean();
    broken.add(new RailMovement("rail-stub", "fp-p1", "rr-2", 2_500L, null));
    HistoryFiles.write(dir, broken);

    assertThat(cli(dir.toString())).isEqualTo(Main.VIOLATED);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("Verdict: **VIOLATED**")
        .contains("| `duplicate_rail_movement` | 1 | fp-p1 (payout p1): 2 movements |");
    assertThat(Files.readString(dir.resolve("check-report.json")))
        .contains("\"duplicate_rail_movement\"");
  }

  @Test
  void theCliExitsTwoOnUnreadableInputOrNoRunDirectory() throws Exception {
    Files.writeString(dir.resolve("effect.jsonl"), "not json\n");

    assertThat(cli(dir.toString())).isEqualTo(Main.UNUSABLE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("effect.jsonl:1:");
    assertThat(cli()).isEqualTo(Main.UNUSABLE);
    assertThat(cli(dir.resolve("missing").toString())).isEqualTo(Main.UNUSABLE);
  }

  @Test
  void theTimelineIsWellFormedSvgWithOneLanePerWorker() throws Exception {
    String svg = Timeline.render(Histories.clean(), "UC-03 <fencing on> & SIGSTOP");

    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setNamespaceAware(true);
    Document doc =
        factory
            .newDocumentBuilder()
            .parse(new java.io.ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));

    assertThat(doc.getDocumentElement().getLocalName()).isEqualTo("svg");
    NodeList groups = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "g");
    List<String> lanes = new java.util.ArrayList<>();
    for (int i = 0; i < groups.getLength(); i++) {
      Element g = (Element) groups.item(i);
      if (g.getAttribute("class").equals("lane")) {
        lanes.add(g.getAttribute("data-lane"));
      }
    }
    assertThat(lanes).containsExactly("w1", "w2", "rail");
    assertThat(svg)
        .contains("class=\"grant\"")
        .contains("class=\"grant-lost\"")
        .contains(">T5<")
        .contains(">T7<")
        .contains("class=\"guard-rejected\"")
        .contains("class=\"movement\"")
        .contains(">SIGSTOP<")
        .contains("UC-03 &lt;fencing on&gt; &amp; SIGSTOP");
  }

  @Test
  void aHistoryWithNothingToDrawHasNoTimeline() {
    assertThat(Timeline.render(new History(), "empty")).isNull();
  }
}
