package dev.fencepost.reconciliation;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.core.ConnectionCallback;
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
    Map<Long, Submission> byId = new LinkedHashMap<>();
    page.forEach(s -> byId.put(s.id(), s));
    List<Submission> rows = new ArrayList<>(byId.values());
    int n = rows.size();
    Long[] ids = new Long[n];
    String[] payouts = new String[n];
    String[] accounts = new String[n];
    Long[] tokens = new Long[n];
    String[] refs = new String[n];
    String[] outcomes = new String[n];
    String[] railRefs = new String[n];
    String[] created = new String[n];
    Long[] amounts = new Long[n];
    String[] currencies = new String[n];
    String[] beneficiaries = new String[n];
    for (int i = 0; i < n; i++) {
      Submission s = rows.get(i);
      ids[i] = s.id();
      payouts[i] = s.payoutId();
      accounts[i] = s.accountId();
      tokens[i] = s.fencingToken();
      refs[i] = s.clientReference();
      outcomes[i] = s.outcome();
      railRefs[i] = s.railReference();
      created[i] = s.createdAt() == null ? null : s.createdAt().toString(); // ISO-8601, UTC
      amounts[i] = s.amountMinor();
      currencies[i] = s.currency();
      beneficiaries[i] = s.beneficiaryRef();
    }
    // One statement per page (arrays unnested), not a round trip per submission.
    template.execute(
        (ConnectionCallback<Integer>)
            connection -> {
              try (var statement =
                  connection.prepareStatement(
                      "INSERT INTO reconciliation_window_submission (scan_key, "
                          + COLUMNS
                          + ") SELECT ?, i, p, a, f, r, o, rr, c::timestamptz, m, cur, b"
                          + " FROM unnest(?::bigint[], ?::text[], ?::text[], ?::bigint[],"
                          + " ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[],"
                          + " ?::text[]) AS u(i, p, a, f, r, o, rr, c, m, cur, b)"
                          + " ON CONFLICT (scan_key, submission_id) DO UPDATE"
                          + " SET outcome = EXCLUDED.outcome,"
                          + " rail_reference = EXCLUDED.rail_reference")) {
                statement.setString(1, scanKey);
                statement.setArray(2, connection.createArrayOf("bigint", ids));
                statement.setArray(3, connection.createArrayOf("text", payouts));
                statement.setArray(4, connection.createArrayOf("text", accounts));
                statement.setArray(5, connection.createArrayOf("bigint", tokens));
                statement.setArray(6, connection.createArrayOf("text", refs));
                statement.setArray(7, connection.createArrayOf("text", outcomes));
                statement.setArray(8, connection.createArrayOf("text", railRefs));
                statement.setArray(9, connection.createArrayOf("text", created));
                statement.setArray(10, connection.createArrayOf("bigint", amounts));
                statement.setArray(11, connection.createArrayOf("text", currencies));
                statement.setArray(12, connection.createArrayOf("text", beneficiaries));
                return statement.executeUpdate();
              }
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
