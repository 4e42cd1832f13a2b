package dev.fencepost.railstub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.prowidesoftware.swift.model.mx.MxCamt05300108;
import com.prowidesoftware.swift.model.mx.dic.AccountStatement9;
import com.prowidesoftware.swift.model.mx.dic.EntryTransaction10;
import com.prowidesoftware.swift.model.mx.dic.ReportEntry10;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.http.TestHttp;
import java.io.StringReader;
import java.math.BigDecimal;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The rail's statement (ADR 0176): every page the stub serves is a camt.053.001.08 document that
 * the ISO 20022 schema accepts and the Prowide model parses, carrying each movement booked in the
 * period once, with its rail reference, amount, currency, booking time, client reference
 * (EndToEndId) and beneficiary; a movement the rail's books do not show yet appears later (a late
 * entry); bad parameters are 400 problem+json; only the reconciler and an operator may read it.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    useMainMethod = SpringBootTest.UseMainMethod.ALWAYS)
class RailStatementTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  @LocalServerPort int port;

  StubHttp stub;
  StubHttp reconciler;

  @DynamicPropertySource
  static void issuer(DynamicPropertyRegistry registry) {
    StubHttp.trustIssuer(registry);
  }

  @BeforeEach
  void freshRail() throws Exception {
    stub = StubHttp.ofEmptyRail(port);
    reconciler = StubHttp.as(port, FencepostRole.RECONCILER);
  }

  @Test
  void everyPageIsASchemaValidCamt053WithEachBookedMovementOnceInFull() throws Exception {
    Instant from = Instant.now().minusSeconds(1);
    String longReference = "fp-" + "x".repeat(60);
    List<String> references = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      references.add("fp-statement-" + i);
    }
    references.add(longReference);
    for (String reference : references) {
      assertThat(stub.post("/rail/payments", StubHttp.payment(reference), TIMEOUT).statusCode())
          .isEqualTo(201);
    }
    // A second movement of one reference: the rail is not idempotent, the statement shows both.
    assertThat(
            stub.post("/rail/payments", StubHttp.payment("fp-statement-0"), TIMEOUT).statusCode())
        .isEqualTo(201);
    Instant to = Instant.now().plusSeconds(1);

    List<ReportEntry10> entries = new ArrayList<>();
    int page = 1;
    boolean last;
    do {
      HttpResponse<String> answer = reconciler.get(statement(from, to, page, 2));
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      assertThat(answer.headers().firstValue("Content-Type"))
          .hasValueSatisfying(t -> assertThat(t).startsWith("application/xml"));
      validate(answer.body());
      AccountStatement9 stmt =
          MxCamt05300108.parse(answer.body()).getBkToCstmrStmt().getStmt().get(0);
      assertThat(stmt.getStmtPgntn().getPgNb()).isEqualTo(Integer.toString(page));
      assertThat(stmt.getNtry()).hasSizeLessThanOrEqualTo(2);
      entries.addAll(stmt.getNtry());
      last = stmt.getStmtPgntn().isLastPgInd();
      page++;
    } while (!last);

    assertThat(page - 1).isEqualTo(4);
    assertThat(entries).hasSize(7);
    assertThat(entries).extracting(ReportEntry10::getNtryRef).doesNotHaveDuplicates();
    assertThat(entries.stream().map(RailStatementTest::clientReference).toList())
        .containsExactlyInAnyOrderElementsOf(concat(references, List.of("fp-statement-0")));
    ReportEntry10 first = entries.get(0);
    EntryTransaction10 tx = first.getNtryDtls().get(0).getTxDtls().get(0);
    assertThat(first.getAmt().getValue()).isEqualByComparingTo(new BigDecimal("15.00"));
    assertThat(first.getAmt().getCcy()).isEqualTo("EUR");
    assertThat(first.getSts().getCd()).isEqualTo("BOOK");
    assertThat(first.getBookgDt().getDtTm().toInstant()).isBetween(from, to);
    assertThat(tx.getRltdPties().getCdtr().getPty().getNm()).isEqualTo("ben-1");
  }

  @Test
  void aMovementTheBooksDoNotShowYetIsALateEntryOfItsPeriod() throws Exception {
    assertThat(stub.put("/rail/admin/faults", "{\"lookupLagMillis\":1500}").statusCode())
        .isEqualTo(200);
    Instant from = Instant.now().minusSeconds(1);
    assertThat(stub.post("/rail/payments", StubHttp.payment("fp-late-1"), TIMEOUT).statusCode())
        .isEqualTo(201);
    Instant to = Instant.now().plusSeconds(1);

    assertThat(entries(from, to)).isEmpty();
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> assertThat(entries(from, to)).hasSize(1));
  }

  @Test
  void badParametersAre400ProblemJsonNamingTheParameter() throws Exception {
    Instant now = Instant.now();
    String from = enc(now.toString());
    String to = enc(now.plusSeconds(60).toString());
    for (String query :
        List.of(
            "bookedTo=" + to,
            "bookedFrom=" + from,
            "bookedFrom=yesterday&bookedTo=" + to,
            "bookedFrom=" + to + "&bookedTo=" + from,
            "bookedFrom=" + enc(now.minus(Duration.ofDays(40)).toString()) + "&bookedTo=" + to,
            "bookedFrom=" + from + "&bookedTo=" + to + "&page=0",
            "bookedFrom=" + from + "&bookedTo=" + to + "&page=x",
            "bookedFrom=" + from + "&bookedTo=" + to + "&pageSize=1001",
            "bookedFrom=" + from + "&bookedTo=" + to + "&pageSize=1%202")) {
      HttpResponse<String> refused = reconciler.get("/rail/statements?" + query);
      assertThat(refused.statusCode()).as(query + ": " + refused.body()).isEqualTo(400);
      assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      assertThat(TestHttp.json(refused).get("code").asString()).isEqualTo("INVALID_PAYMENT");
    }
  }

  @Test
  void onlyTheReconcilerAndAnOperatorReadTheStatement() throws Exception {
    String path = statement(Instant.now().minusSeconds(60), Instant.now(), 1, 10);
    assertThat(reconciler.get(path).statusCode()).isEqualTo(200);
    assertThat(StubHttp.as(port, FencepostRole.OPERATOR).get(path).statusCode()).isEqualTo(200);
    assertThat(StubHttp.as(port, FencepostRole.RAIL_PROXY).get(path).statusCode()).isEqualTo(403);
    assertThat(StubHttp.as(port, FencepostRole.PAYOUT_WORKER).get(path).statusCode())
        .isEqualTo(403);
    assertThat(StubHttp.anonymous(port).get(path).statusCode()).isEqualTo(401);
  }

  private List<ReportEntry10> entries(Instant from, Instant to) throws Exception {
    HttpResponse<String> answer = reconciler.get(statement(from, to, 1, 100));
    validate(answer.body());
    return MxCamt05300108.parse(answer.body()).getBkToCstmrStmt().getStmt().get(0).getNtry();
  }

  private static String clientReference(ReportEntry10 entry) {
    EntryTransaction10 tx = entry.getNtryDtls().get(0).getTxDtls().get(0);
    String endToEnd = tx.getRefs().getEndToEndId();
    return Camt053Statement.NOT_PROVIDED.equals(endToEnd)
        ? tx.getRmtInf().getUstrd().get(0)
        : endToEnd;
  }

  /** Against the ISO 20022 schema of camt.053.001.08 (src/test/resources/iso20022, README). */
  private static void validate(String xml) throws Exception {
    SchemaFactory factory = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
    Validator validator =
        factory
            .newSchema(RailStatementTest.class.getResource("/iso20022/camt.053.001.08.xsd"))
            .newValidator();
    validator.validate(new StreamSource(new StringReader(xml)));
  }

  private static String statement(Instant from, Instant to, int page, int pageSize) {
    return "/rail/statements?bookedFrom="
        + enc(from.toString())
        + "&bookedTo="
        + enc(to.toString())
        + "&page="
        + page
        + "&pageSize="
        + pageSize;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
