package dev.fencepost.experiments.revoke;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.Evidence;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.Guards;
import dev.fencepost.experiments.harness.LockBackend;
import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.experiments.harness.RunResult;
import dev.fencepost.experiments.harness.Worker;
import dev.fencepost.history.Records;
import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import dev.fencepost.security.FencepostRole;
import dev.fencepost.testsupport.http.TestHttp;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * UC-06 with real processes: a worker parks mid-payout with its session alive (parked, not
 * SIGSTOPped: it keeps renewing, so its lease would never run out and only an operator can free the
 * account), an operator force-revokes the key through the lock server's admin endpoint, a second
 * worker completes the payout under a higher token, and the parked worker's next write is fenced.
 * docs/evidence/uc06-revoke.md is written from this run.
 */
@Tag("UC-06")
@Tag("FR-08")
@Tag("NFR-08")
@Tag("long")
class Uc06ForceRevokeIT {

  static final long FUNDING = 10_000;
  static final long AMOUNT = 2_500;

  /** The operator is whoever the token names: the experiments' issuer's operator client. */
  static final String OPERATOR = LocalIdentity.clientId(FencepostRole.OPERATOR);

  static final String REASON = "UC-06 drill: holder parked mid-payout, lease kept alive";

  record AuditRow(String operator, String reason, Long revokedToken, String revokedOwner) {}

  @Test
  void aRevokedHolderIsFencedOutAndASecondWorkerCompletesThePayoutUnderAHigherToken() {
    RunResult result;
    long revokedToken;
    int fencedOutEvents;
    try (ExperimentRun run =
        ExperimentRun.start(
            "uc06-revoke", "UC-06: force-revoke of a live holder mid-payout", Guards.ALL_ON)) {
      Payout payout = run.payout("uc06", FUNDING, AMOUNT);
      String key = "payout:" + payout.accountId().value();
      JavaProcess lockServer = run.stack().lockServer(LockBackend.POSTGRES);

      Worker w1 = run.worker("w1").pauseAt(Point.CLAIMED).pauseLandsAfterCheck().start();
      // The successor boots meanwhile and waits at its gate: JVM starts overlap.
      Worker w2 = run.worker("w2").loop().gated().start();
      Map<String, String> parked = w1.awaitParked(Duration.ofMinutes(3));
      long parkedToken = Long.parseLong(parked.get("token"));

      run.event(w1, "REVOKE", "operator " + OPERATOR + " revokes " + key + ": " + REASON);
      HttpResponse<String> revoke = revoke(lockServer.baseUrl(), key, OPERATOR, REASON);
      assertThat(revoke.statusCode()).as(revoke.body()).isEqualTo(200);
      revokedToken =
          Long.parseLong(revoke.body().replaceAll("(?s).*\"revokedToken\":(\\d+).*", "$1"));
      assertThat(revokedToken).isEqualTo(parkedToken);
      assertThat(revoke.body()).contains("\"revokedOwner\":\"w1\"");

      w2.awaitReady(Duration.ofMinutes(3));
      run.openGate(w2, "the account's key is free again");
      run.awaitState(payout, PayoutState.POSTED);
      run.terminate(w2, "the payout is POSTED");

      run.resume(w1, false, "the revoked holder goes on with its old token");
      w1.awaitExit(Duration.ofMinutes(2));

      result = run.finish();

      assertThat(result.report().safe()).as(result.report().toMarkdown("uc06")).isTrue();
      assertThat(run.movements(payout)).isEqualTo(1);
      assertThat(run.submissions(payout.id())).isEqualTo(1);

      List<Records.Grant> acquired =
          result.history().grants.stream()
              .filter(g -> g.key().equals(key) && g.kind().equals("ACQUIRED"))
              .toList();
      assertThat(acquired).extracting(Records.Grant::token).contains(revokedToken);
      assertThat(acquired)
          .filteredOn(g -> g.seq() > seqOf(acquired, revokedToken))
          .isNotEmpty()
          .allSatisfy(g -> assertThat(g.token()).isGreaterThan(revokedToken));
      assertThat(result.history().grants)
          .anySatisfy(
              g -> {
                assertThat(g.key()).isEqualTo(key);
                assertThat(g.kind()).isEqualTo("REVOKED");
                assertThat(g.token()).isEqualTo(revokedToken);
              });

      Records.Effect stale = last(result.effectsOf("w1"));
      assertThat(stale.what()).isEqualTo("SUBMIT");
      assertThat(stale.outcome()).isEqualTo("FENCED_OUT");
      assertThat(stale.token()).isEqualTo(revokedToken);
      assertThat(result.fencedEffects()).hasSize(1);
      assertThat(result.effectsOf("w2"))
          .isNotEmpty()
          .allSatisfy(e -> assertThat(e.token()).isGreaterThan(revokedToken));
      fencedOutEvents = w1.process().logLines("lock.fenced_out").size();
      assertThat(fencedOutEvents).isEqualTo(1);

      assertThat(audit(run.stack().lockdb(), key))
          .containsExactly(new AuditRow(OPERATOR, REASON, revokedToken, "w1"));
      assertThat(lockServer.logLines("\"lock.revoked\""))
          .filteredOn(l -> l.contains(key))
          .singleElement()
          .satisfies(
              l ->
                  assertThat(l)
                      .contains("\"alert\":true")
                      .contains(OPERATOR)
                      .contains("\"revokedToken\":" + revokedToken));
    }
    Uc06Evidence.write(result, revokedToken, fencedOutEvents);
  }

  static long seqOf(List<Records.Grant> acquired, long token) {
    return acquired.stream().filter(g -> g.token() == token).findFirst().orElseThrow().seq();
  }

  static Records.Effect last(List<Records.Effect> effects) {
    assertThat(effects).isNotEmpty();
    return effects.get(effects.size() - 1);
  }

  static HttpResponse<String> revoke(String baseUrl, String key, String operator, String reason) {
    String body =
        "{\"operator\":\"" + operator + "\",\"reason\":\"" + reason.replace("\"", "'") + "\"}";
    TestHttp http =
        new TestHttp(
            HttpClient.newHttpClient(),
            baseUrl,
            Duration.ofSeconds(30),
            request -> LockServers.identity().tokens(FencepostRole.OPERATOR).currentToken());
    return TestHttp.unchecked(() -> http.post("/v1/admin/locks/" + key + "/revoke", body));
  }

  static List<AuditRow> audit(PostgresDatabase lockdb, String key) {
    try (Connection c =
            DriverManager.getConnection(lockdb.jdbcUrl(), lockdb.username(), lockdb.password());
        PreparedStatement s =
            c.prepareStatement(
                "SELECT operator, reason, revoked_token, revoked_owner FROM lock_audit"
                    + " WHERE action = 'REVOKE' AND lock_key = ? ORDER BY id")) {
      s.setString(1, key);
      try (ResultSet rs = s.executeQuery()) {
        List<AuditRow> rows = new java.util.ArrayList<>();
        while (rs.next()) {
          rows.add(
              new AuditRow(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getObject(3) == null ? null : rs.getLong(3),
                  rs.getString(4)));
        }
        return rows;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The evidence report for this scenario. */
  static final class Uc06Evidence {
    private Uc06Evidence() {}

    static void write(RunResult result, long revokedToken, int fencedOutEvents) {
      new Evidence(
              "uc06-revoke",
              "UC-06: force-revoke of a live holder mid-payout",
              Uc06ForceRevokeIT.class)
          .paragraph(
              "A worker (w1) claims a payout and parks there, its process running and its session"
                  + " renewed every heartbeat: the lock would never expire, which is the case"
                  + " force-revoke exists for (UC-06, FR-08, ADR 0005). An operator revokes the"
                  + " account's key through `POST /v1/admin/locks/{key}/revoke` with an identity"
                  + " and a reason. A second worker (w2) then acquires the key, gets a higher"
                  + " token, and completes the payout. w1 is let go with its revoked token"
                  + " (token "
                  + revokedToken
                  + "); the parking landed after its local check, so its next write reaches the"
                  + " rail proxy, whose high-water already holds w2's token: "
                  + result.fencedEffects().size()
                  + " FENCED_OUT effect, "
                  + fencedOutEvents
                  + " `lock.fenced_out` in its log. The test also asserts the `lock_audit` row (operator,"
                  + " reason, revoked token, owner) and the lock server's `lock.revoked` event with"
                  + " `alert=true`.")
          .scenario("Revoke mid-payout, every guard on", null, result)
          .write();
    }
  }
}
