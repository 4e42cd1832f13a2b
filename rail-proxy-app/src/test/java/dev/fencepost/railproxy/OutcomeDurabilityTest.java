package dev.fencepost.railproxy;

import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static dev.fencepost.testsupport.http.TestHttp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.matching.RequestPatternBuilder;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import dev.fencepost.testsupport.postgres.StoppedWalWriters;
import java.net.http.HttpResponse;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A rail outcome commits without waiting for the WAL flush, and the intent before the rail call
 * still waits for its own (ADR 0222). A trigger records the {@code synchronous_commit} each write
 * runs under; then the tests crash proxydb's PostgreSQL (every process SIGKILLed, as a host crash)
 * after a submission. So that nothing but a commit's own flush writes WAL before the crash, the WAL
 * writer and the background writer are stopped (SIGSTOP, by PID; the server is this class's own)
 * just before the submission.
 *
 * <p>What the change must keep: a payout whose outcome is lost is never sent again (its intent
 * survives, FR-19, INV-02), and reads as unresolved, which every reader takes for ambiguous (FR-20,
 * UC-05). What it costs: the outcome itself, until a later synchronous commit on the server (the
 * next intent, or paydb's posting on the same server) flushes it.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    useMainMethod = SpringBootTest.UseMainMethod.ALWAYS)
@DirtiesContext
class OutcomeDurabilityTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml")
          .dedicatedServer();

  static final WireMockServer rail = ProxyUnderTest.settlingRail("RAIL-DURABLE");

  @LocalServerPort int port;
  @Autowired DataSource proxyPool;

  private ProxyHttp proxy;
  private JdbcClient superuser;

  /** The writers this test stopped; a crash kills them. */
  private StoppedWalWriters stopped;

  @DynamicPropertySource
  static void wire(DynamicPropertyRegistry registry) {
    ProxyUnderTest.register(registry, proxydb);
    registry.add("fencepost.rail.base-url", rail::baseUrl);
    registry.add("fencepost.rail.timeout", () -> "5s");
    // One connection: a setting that outlived the outcome's transaction would show in the next
    // statement, which runs on the same connection.
    registry.add("spring.datasource.hikari.maximum-pool-size", () -> "1");
  }

  @BeforeAll
  static void recordCommitModes() {
    JdbcClient superuser = JdbcClient.create(proxydb.dataSource());
    superuser
        .sql(
            """
            CREATE TABLE commit_mode (
              id bigserial PRIMARY KEY, tbl text, op text, account_id text,
              outcome text, synchronous_commit text)
            """)
        .update();
    superuser
        .sql(
            """
            CREATE FUNCTION record_commit_mode() RETURNS trigger
            LANGUAGE plpgsql SECURITY DEFINER AS $$
            BEGIN
              INSERT INTO commit_mode (tbl, op, account_id, outcome, synchronous_commit)
              VALUES (TG_TABLE_NAME, TG_OP, to_jsonb(NEW) ->> 'account_id',
                      to_jsonb(NEW) ->> 'outcome', current_setting('synchronous_commit'));
              RETURN NULL;
            END $$
            """)
        .update();
    for (String table : List.of("rail_submission", "account_high_water", "submission_rejection")) {
      superuser
          .sql(
              "CREATE TRIGGER record_commit_mode AFTER INSERT OR UPDATE ON "
                  + table
                  + " FOR EACH ROW EXECUTE FUNCTION record_commit_mode()")
          .update();
    }
  }

  @AfterAll
  static void stopRail() {
    rail.stop();
  }

  @BeforeEach
  void setUp() {
    proxy = new ProxyHttp(port);
    superuser = JdbcClient.create(proxydb.dataSource());
  }

  @AfterEach
  void resumeWritersLeftStopped() {
    // A test that failed between the SIGSTOP and the crash leaves no stopped server behind.
    if (stopped != null) {
      stopped.close();
    }
  }

  @Test
  @Tag("FR-19")
  @Tag("FR-20")
  void theIntentWaitsForItsFlushAndTheOutcomeDoesNot() {
    String account = "acct-" + UUID.randomUUID();
    String payout = payout();
    String stale = payout();

    assertThat(proxy.submit(payout, account, 9).statusCode()).isEqualTo(200);
    assertThat(proxy.submit(payout, account, 9).statusCode()).as("a duplicate").isEqualTo(409);
    assertThat(proxy.submit(stale, account, 8).statusCode()).as("a stale token").isEqualTo(409);

    // The duplicate's high-water advance rolled back with its refused intent, trigger row and all.
    // The refusals ran after the outcome on the pool's one connection, and waited for their flush:
    // the outcome's setting ended with its transaction.
    assertThat(commitModes(account))
        .containsExactly(
            "account_high_water INSERT on",
            "rail_submission INSERT on",
            "rail_submission UPDATE ACKED off",
            "submission_rejection INSERT on",
            "submission_rejection INSERT on");
  }

  @Test
  @Tag("FR-20")
  void anOutcomeIsDurableOnceALaterSynchronousCommitOnTheServerReturns() {
    // paydb, as the shipped topology has it: another database on the same server, one WAL.
    PostgresDatabase paydb = proxydb.server().createDatabase("paydb");
    JdbcClient postings = JdbcClient.create(paydb.dataSource());
    postings.sql("CREATE TABLE posting (payout_id text PRIMARY KEY)").update();
    String payout = payout();
    submittedWithTheWritersStopped(payout);

    // The worker's posting of the payout, a synchronous commit: its commit record comes after the
    // outcome's in the WAL, and its flush writes both.
    postings.sql("INSERT INTO posting VALUES (:payout)").param("payout", payout).update();
    crashAndRecover();

    assertThat(row(payout))
        .containsEntry("outcome", "ACKED")
        .containsEntry("rail_reference", "RAIL-DURABLE");
    rail.verify(1, forPayout(payout));
  }

  @Test
  @Tag("FR-19")
  @Tag("FR-20")
  @Tag("INV-02")
  @Tag("UC-05")
  void anOutcomeLostToACrashLeavesItsSubmissionUnresolvedAndThePayoutIsNeverSentAgain() {
    String account = "acct-" + UUID.randomUUID();
    String payout = payout();
    submittedWithTheWritersStopped(payout, account);

    crashAndRecover();

    // A recovering worker reads the record first (UC-04): the intent was flushed before the rail
    // was called, so it is there; the outcome was not flushed at all. A 404 here would tell the
    // worker that nothing was sent.
    HttpResponse<String> record = proxy.get("/v1/submissions/" + payout);
    assertThat(record.statusCode()).as("the payout's record after the crash").isEqualTo(200);
    assertThat(json(record).get("outcome").isNull()).as("read as unresolved").isTrue();
    assertThat(row(payout)).containsEntry("resolved_at", null);
    // A recovering worker with a newer token is refused: the payout is never sent again.
    HttpResponse<String> again = proxy.submit(payout, account, 8);
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(json(again).get("code").asString()).isEqualTo("DUPLICATE_SUBMISSION");
    rail.verify(1, forPayout(payout));
  }

  private void submittedWithTheWritersStopped(String payout) {
    submittedWithTheWritersStopped(payout, "acct-" + UUID.randomUUID());
  }

  /**
   * {@code payout} submitted (token 7) and answered ACKED, with the WAL writer and the background
   * writer stopped from just before it: until the crash, only a synchronous commit's own flush
   * writes the WAL.
   */
  private void submittedWithTheWritersStopped(String payout, String account) {
    // A first submission on a fresh pool pays its connections' start-up before the writers stop.
    assertThat(proxy.submit(payout(), account, 6).statusCode()).isEqualTo(200);
    stopped = StoppedWalWriters.stop(proxydb.dataSource());
    HttpResponse<String> answer = proxy.submit(payout, account, 7);
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(json(answer).get("outcome").asString()).isEqualTo("ACKED");
  }

  /**
   * SIGKILLs every PostgreSQL process, starts the server again, and waits until the proxy answers
   * from proxydb.
   */
  private void crashAndRecover() {
    proxydb.server().crash();
    proxydb.server().start();
    ((HikariDataSource) proxydb.dataSource()).getHikariPoolMXBean().softEvictConnections();
    try {
      proxyPool.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
    } catch (SQLException e) {
      throw new IllegalStateException("the proxy's pool is not Hikari's", e);
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> proxy.get("/v1/submissions/absent-" + UUID.randomUUID()).statusCode() == 404);
  }

  /** The account's writes, in order: "table OP [outcome] synchronous_commit". */
  private List<String> commitModes(String account) {
    return superuser
        .sql(
            """
            SELECT concat_ws(' ', tbl, op, outcome, synchronous_commit) FROM commit_mode
             WHERE account_id = :account ORDER BY id
            """)
        .param("account", account)
        .query(String.class)
        .list();
  }

  private Map<String, Object> row(String payout) {
    return superuser
        .sql("SELECT * FROM rail_submission WHERE payout_id = :payout")
        .param("payout", payout)
        .query()
        .singleRow();
  }

  private static RequestPatternBuilder forPayout(String payout) {
    return postRequestedFor(urlEqualTo("/rail/payments"))
        .withRequestBody(matchingJsonPath("$.clientReference", equalTo("cref-" + payout)));
  }

  private static String payout() {
    return "p-" + UUID.randomUUID();
  }
}
