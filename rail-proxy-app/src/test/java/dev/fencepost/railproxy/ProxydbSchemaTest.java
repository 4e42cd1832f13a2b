package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * proxydb itself refuses what the proxy must never do, whoever the writer is: a second submission
 * for a payout (FR-18, INV-02), a second outcome or any edit of a resolved row (FR-20), deleting
 * evidence, and a high-water that goes backwards (INV-05).
 */
@Tag("FR-18")
@Tag("FR-20")
@Tag("INV-02")
@Tag("INV-05")
class ProxydbSchemaTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  JdbcTemplate jdbc;

  @BeforeEach
  void connect() {
    jdbc = new JdbcTemplate(proxydb.dataSource());
  }

  @Test
  void aPayoutCanHaveOnlyOneSubmissionRow() {
    insertIntent("po-unique", 5);

    assertThatThrownBy(() -> insertIntent("po-unique", 6))
        .isInstanceOf(DuplicateKeyException.class);
  }

  @Test
  void anOutcomeIsRecordedOnceAndThenTheRowIsFrozen() {
    long id = insertIntent("po-frozen", 5);
    assertThat(resolve(id, "TIMEOUT")).isEqualTo(1);

    // The application's own predicate matches nothing the second time...
    assertThat(
            jdbc.update(
                "UPDATE rail_submission SET outcome = 'ACKED', resolved_at = now()"
                    + " WHERE id = ? AND outcome IS NULL",
                id))
        .isZero();
    // ...and any other writer is stopped by the trigger.
    assertThatThrownBy(() -> resolve(id, "ACKED"))
        .isInstanceOf(DataAccessException.class)
        .hasMessageContaining("immutable");
    assertThat(
            jdbc.queryForObject(
                "SELECT outcome FROM rail_submission WHERE id = ?", String.class, id))
        .isEqualTo("TIMEOUT");
  }

  @Test
  void negativeControlWithoutTheTriggerAResolvedOutcomeCanBeRewritten() {
    jdbc.execute("ALTER TABLE rail_submission DISABLE TRIGGER rail_submission_update_guard");
    try {
      long id = insertIntent("po-rewritable", 5);
      resolve(id, "TIMEOUT");

      assertThat(resolve(id, "ACKED")).isEqualTo(1);
    } finally {
      jdbc.execute("ALTER TABLE rail_submission ENABLE TRIGGER rail_submission_update_guard");
    }
  }

  @Test
  void anUnresolvedIntentMayOnlyReceiveItsOutcome() {
    long id = insertIntent("po-identity", 5);

    assertThatThrownBy(
            () -> jdbc.update("UPDATE rail_submission SET fencing_token = 9 WHERE id = ?", id))
        .isInstanceOf(DataAccessException.class)
        .hasMessageContaining("only the outcome");
  }

  @Test
  void submissionsAndRejectionsAreNeverDeleted() {
    long id = insertIntent("po-evidence", 5);
    jdbc.update(
        "INSERT INTO submission_rejection (reason, payout_id, account_id, presented_token,"
            + " high_water, client_reference) VALUES ('FENCED', 'po-evidence', 'acc-1', 3, 5, 'c')");

    assertThatThrownBy(() -> jdbc.update("DELETE FROM rail_submission WHERE id = ?", id))
        .isInstanceOf(DataAccessException.class);
    assertThatThrownBy(() -> jdbc.update("DELETE FROM submission_rejection"))
        .isInstanceOf(DataAccessException.class);
    assertThatThrownBy(() -> jdbc.update("UPDATE submission_rejection SET presented_token = 99"))
        .isInstanceOf(DataAccessException.class);
  }

  @Test
  void theHighWaterNeverGoesBackwards() {
    jdbc.update("INSERT INTO account_high_water (account_id, high_water) VALUES ('acc-hw', 40)");

    assertThatThrownBy(
            () ->
                jdbc.update(
                    "UPDATE account_high_water SET high_water = 39 WHERE account_id = 'acc-hw'"))
        .isInstanceOf(DataAccessException.class)
        .hasMessageContaining("backwards");
    assertThat(
            jdbc.update(
                "UPDATE account_high_water SET high_water = 41 WHERE account_id = 'acc-hw'"))
        .isEqualTo(1);
  }

  @Test
  void theUnguardedSideTableHasNoUniqueness() {
    insertIntent("po-side", 5);

    for (int i = 0; i < 2; i++) {
      jdbc.update(
          "INSERT INTO unguarded_submission (payout_id, account_id, fencing_token,"
              + " client_reference, amount_minor, currency, beneficiary_ref)"
              + " VALUES ('po-side', 'acc-1', 6, 'cref-po-side', 100, 'EUR', 'ben')");
    }

    assertThat(jdbc.queryForObject("SELECT count(*) FROM unguarded_submission", Integer.class))
        .isEqualTo(2);
  }

  private long insertIntent(String payoutId, long token) {
    return jdbc.queryForObject(
        "INSERT INTO rail_submission (payout_id, account_id, fencing_token, client_reference,"
            + " amount_minor, currency, beneficiary_ref) VALUES (?, 'acc-1', ?, ?, 100, 'EUR',"
            + " 'ben') RETURNING id",
        Long.class,
        payoutId,
        token,
        "cref-" + payoutId);
  }

  private int resolve(long id, String outcome) {
    return jdbc.update(
        "UPDATE rail_submission SET outcome = ?, resolved_at = now() WHERE id = ?", outcome, id);
  }
}
