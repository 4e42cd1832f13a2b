package dev.fencepost.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payment.testkit.PaydbFixtures;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The run's progress count on a real paydb: while the workers run, the finished payouts are the
 * payouts at the start less the unfinished ones, counted without reading the finished rows.
 */
class ProgressCountTest {

  @RegisterExtension
  static EmbeddedPostgresExtension server = EmbeddedPostgresExtension.withChangelog(null);

  private PostgresDatabase db;

  @BeforeEach
  void freshPaydb() {
    db =
        server
            .server()
            .createDatabase("progress")
            .applyChangelog("db/changelog/paydb/db.changelog-master.yaml");
  }

  @AfterEach
  void closePaydb() {
    db.close();
  }

  @Test
  void theProgressCountAgreesWithTheCountOfEveryStateWhateverStatesThePayoutsAreIn() {
    PaydbFixtures fixtures = new PaydbFixtures(db.dataSource(), "progress-test");
    List<UUID> payouts = new ArrayList<>();
    for (int a = 0; a < PayoutState.values().length; a++) {
      AccountId account = fixtures.fundedAccount("acc-" + a, 1_000_000);
      for (int i = 0; i < 2 + a; i++) {
        payouts.add(
            fixtures.createPendingPayout(account, 100, "EUR", "ben-" + a + "-" + i).id().value());
      }
    }
    long atStart = LocalRun.payouts(db.dataSource());
    assertThat(atStart).isEqualTo(payouts.size());
    assertThat(atStart - LocalRun.unfinished(db.dataSource())).isZero();

    // Each state in turn gets a different number of payouts, so a state counted on the wrong side
    // changes the figure: the superuser writes the states directly, as no worker would.
    int next = 0;
    for (PayoutState state : PayoutState.values()) {
      for (int i = 0; i <= state.ordinal(); i++) {
        setState(payouts.get(next++), state);
      }
    }
    assertThat(atStart - LocalRun.unfinished(db.dataSource()))
        .isEqualTo(LocalRun.finished(states()))
        .isEqualTo(LocalRun.FINISHED.stream().mapToLong(s -> s.ordinal() + 1).sum());
  }

  @Test
  void theUnfinishedCountNamesEveryStateAWorkerStillActsOnAndNoOther() {
    assertThat(LocalRun.UNFINISHED)
        .isEqualTo(
            "SELECT count(*) FROM payout WHERE state IN"
                + " ('PENDING', 'CLAIMED', 'RAIL_SUBMITTED', 'RAIL_ACKED')");
  }

  @Test
  void theUnfinishedCountIsServedByTheStateIndexNotByReadingEveryPayout() {
    JdbcClient jdbc = JdbcClient.create(db.dataSource());
    // The planner's choice on an empty table says nothing: without its sequential scan it must
    // use the index if it can.
    String plan =
        jdbc.sql("SET enable_seqscan = off").update() >= 0
            ? String.join(
                "\n", jdbc.sql("EXPLAIN " + LocalRun.UNFINISHED).query(String.class).list())
            : "";
    // An index scan with a condition reads the unfinished entries alone; a filtered scan of the
    // whole index would still read every payout's entry.
    assertThat(plan)
        .contains("payout_state_updated")
        .contains("Index Cond")
        .doesNotContain("Seq Scan");
  }

  private void setState(UUID payout, PayoutState state) {
    JdbcClient.create(db.dataSource())
        .sql("UPDATE payout SET state = ?, finished_at = CASE WHEN ? THEN now() END WHERE id = ?")
        .params(state.name(), state.isTerminal(), payout)
        .update();
  }

  private Map<String, Long> states() {
    Map<String, Long> states = new LinkedHashMap<>();
    for (PayoutState state : PayoutState.values()) {
      states.put(state.name(), 0L);
    }
    JdbcClient.create(db.dataSource())
        .sql("SELECT state, count(*) AS n FROM payout GROUP BY state")
        .query((rs, i) -> Map.entry(rs.getString("state"), rs.getLong("n")))
        .list()
        .forEach(e -> states.put(e.getKey(), e.getValue()));
    return states;
  }
}
