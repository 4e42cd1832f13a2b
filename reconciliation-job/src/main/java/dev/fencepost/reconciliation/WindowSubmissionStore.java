package dev.fencepost.reconciliation;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The working copy of a window's proxy submissions in paydb (changeset paydb-010, ADR 0187), keyed
 * by the comparison's scan key: filled a page at a time from the proxy, read back a page at a time
 * and joined with the statement entries in SQL, and deleted when the comparison ends. It is not
 * evidence (the proxy's own table is): copying a page again replaces it, so a comparison restarted
 * after a crash simply copies again.
 */
public class WindowSubmissionStore {

  private static final String COLUMNS =
      "submission_id, payout_id, account_id, fencing_token, client_reference, outcome,"
          + " rail_reference, created_at, amount_minor, currency, beneficiary_ref";

  private final JdbcClient jdbc;
  private final JdbcTemplate template;

  public WindowSubmissionStore(DataSource paydb) {
    this.jdbc = JdbcClient.create(paydb);
    this.template = new JdbcTemplate(paydb);
  }

  /**
   * Adds a page of submissions to the copy under {@code scanKey}; a row copied again is replaced.
   */
  public void copy(String scanKey, List<Submission> page) {
    if (page.isEmpty()) {
      return;
    }
    template.batchUpdate(
        "INSERT INTO reconciliation_window_submission (scan_key, "
            + COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (scan_key, submission_id) DO UPDATE SET outcome = EXCLUDED.outcome,"
            + " rail_reference = EXCLUDED.rail_reference",
        page,
        500,
        (ps, s) -> {
          ps.setString(1, scanKey);
          ps.setLong(2, s.id());
          ps.setString(3, s.payoutId());
          ps.setString(4, s.accountId());
          ps.setLong(5, s.fencingToken());
          ps.setString(6, s.clientReference());
          ps.setString(7, s.outcome());
          ps.setString(8, s.railReference());
          if (s.createdAt() == null) {
            ps.setNull(9, Types.TIMESTAMP_WITH_TIMEZONE);
          } else {
            ps.setTimestamp(9, Timestamp.from(s.createdAt()));
          }
          ps.setLong(10, s.amountMinor());
          ps.setString(11, s.currency());
          ps.setString(12, s.beneficiaryRef());
        });
  }

  /** At most {@code limit} copied submissions with an id above {@code afterId}, by id. */
  public List<Submission> page(String scanKey, long afterId, int limit) {
    return jdbc.sql(
            "SELECT "
                + COLUMNS
                + " FROM reconciliation_window_submission"
                + " WHERE scan_key = :scan AND submission_id > :after"
                + " ORDER BY submission_id LIMIT :limit")
        .param("scan", scanKey)
        .param("after", afterId)
        .param("limit", limit)
        .query((rs, i) -> submission(rs))
        .list();
  }

  /** The copied submissions of the given payouts, by payout id. */
  public Map<String, Submission> byPayoutId(String scanKey, Collection<String> payoutIds) {
    Map<String, Submission> found = new HashMap<>();
    if (payoutIds.isEmpty()) {
      return found;
    }
    jdbc.sql(
            "SELECT "
                + COLUMNS
                + " FROM reconciliation_window_submission"
                + " WHERE scan_key = :scan AND payout_id IN (:ids)")
        .param("scan", scanKey)
        .param("ids", new ArrayList<>(payoutIds))
        .query((rs, i) -> submission(rs))
        .list()
        .forEach(s -> found.put(s.payoutId(), s));
    return found;
  }

  /**
   * At most {@code limit} client references, above {@code afterRef} in order, that a statement
   * entry booked in {@code window} names and no copied submission carries: money that left under a
   * reference the window's submissions do not account for.
   */
  public List<String> referencesMovedWithoutSubmission(
      String scanKey, ReconciliationWindow window, String afterRef, int limit) {
    return jdbc.sql(
            """
            SELECT DISTINCT e.end_to_end_id FROM reconciliation_statement_entry e
             WHERE e.booked_at >= :from AND e.booked_at < :to AND e.end_to_end_id > :after
               AND NOT EXISTS (SELECT 1 FROM reconciliation_window_submission s
                                WHERE s.scan_key = :scan AND s.client_reference = e.end_to_end_id)
             ORDER BY e.end_to_end_id LIMIT :limit""")
        .param("from", Timestamp.from(window.from()))
        .param("to", Timestamp.from(window.to()))
        .param("after", afterRef)
        .param("scan", scanKey)
        .param("limit", limit)
        .query(String.class)
        .list();
  }

  /** How many submissions are copied under {@code scanKey}. */
  public long count(String scanKey) {
    return jdbc.sql("SELECT count(*) FROM reconciliation_window_submission WHERE scan_key = :scan")
        .param("scan", scanKey)
        .query(Long.class)
        .single();
  }

  /** Deletes the copy under {@code scanKey}. */
  public void delete(String scanKey) {
    jdbc.sql("DELETE FROM reconciliation_window_submission WHERE scan_key = :scan")
        .param("scan", scanKey)
        .update();
  }

  private static Submission submission(ResultSet rs) throws SQLException {
    Timestamp created = rs.getTimestamp("created_at");
    return new Submission(
        rs.getLong("submission_id"),
        rs.getString("payout_id"),
        rs.getString("account_id"),
        rs.getLong("fencing_token"),
        rs.getString("client_reference"),
        rs.getString("outcome"),
        rs.getString("rail_reference"),
        created == null ? null : created.toInstant(),
        rs.getLong("amount_minor"),
        rs.getString("currency"),
        rs.getString("beneficiary_ref"));
  }
}
