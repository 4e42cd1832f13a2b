package dev.fencepost.reconciliation;

import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The statement entries the reconciler has read, in paydb (changeset paydb-008), keyed by entry
 * reference: recording an entry again changes nothing, so a window read twice, a statement sent
 * twice, or a step restarted after a crash never counts a movement twice (ADR 0176, 0177). A client
 * reference's entries here are its whole history on the rail as far as the reconciler has read it,
 * which is what the duplicate check compares.
 */
public class StatementEntryStore {

  private final JdbcClient jdbc;
  private final JdbcTemplate template;
  private final TransactionTemplate tx;

  public StatementEntryStore(DataSource paydb) {
    this.jdbc = JdbcClient.create(paydb);
    this.template = new JdbcTemplate(paydb);
    this.tx = new TransactionTemplate(new DataSourceTransactionManager(paydb));
  }

  /** Runs {@code work} in one paydb transaction (a chunk's writes, ADR 0178). */
  public void inTransaction(Runnable work) {
    tx.executeWithoutResult(status -> work.run());
  }

  /**
   * Records every entry not yet recorded, as first read by scan {@code scanKey}; returns how many
   * were new.
   */
  public int record(List<StatementEntry> entries, String source, String scanKey) {
    if (entries.isEmpty()) {
      return 0;
    }
    // One statement per chunk (arrays unnested), not a round trip per entry.
    int n = entries.size();
    String[] refs = new String[n];
    String[] e2e = new String[n];
    Long[] amounts = new Long[n];
    String[] currencies = new String[n];
    String[] beneficiaries = new String[n];
    String[] booked = new String[n];
    for (int i = 0; i < n; i++) {
      StatementEntry e = entries.get(i);
      refs[i] = e.entryReference();
      e2e[i] = e.endToEndId();
      amounts[i] = e.amountMinor();
      currencies[i] = e.currency();
      beneficiaries[i] = e.beneficiaryRef();
      booked[i] = e.bookedAt().toString(); // ISO-8601 in UTC: no session time zone applies
    }
    Integer added =
        template.execute(
            (ConnectionCallback<Integer>)
                connection -> {
                  try (var statement =
                      connection.prepareStatement(
                          """
                          INSERT INTO reconciliation_statement_entry
                            (entry_ref, end_to_end_id, amount_minor, currency, beneficiary_ref,
                             booked_at, source, first_scan_key)
                          SELECT r, e, a, c, b, t::timestamptz, ?, ?
                            FROM unnest(?::text[], ?::text[], ?::bigint[], ?::text[], ?::text[],
                                        ?::text[]) AS u(r, e, a, c, b, t)
                          ON CONFLICT (entry_ref) DO NOTHING""")) {
                    statement.setString(1, source);
                    statement.setString(2, scanKey);
                    statement.setArray(3, connection.createArrayOf("text", refs));
                    statement.setArray(4, connection.createArrayOf("text", e2e));
                    statement.setArray(5, connection.createArrayOf("bigint", amounts));
                    statement.setArray(6, connection.createArrayOf("text", currencies));
                    statement.setArray(7, connection.createArrayOf("text", beneficiaries));
                    statement.setArray(8, connection.createArrayOf("text", booked));
                    return statement.executeUpdate();
                  }
                });
    return added == null ? 0 : added;
  }

  /** Records what scan {@code scanKey} found; a finding recorded already changes nothing. */
  public void recordFinding(String scanKey, Finding f) {
    jdbc.sql(
            """
            INSERT INTO reconciliation_scan_finding
              (scan_key, discrepancy, severity, subject, payout_id, account_id, detail)
            VALUES (:scan, :d, :s, :subject, :payout::uuid, :account, :detail)
            ON CONFLICT (scan_key, discrepancy, subject) DO NOTHING""")
        .param("scan", scanKey)
        .param("d", f.discrepancy().name())
        .param("s", f.severity().name())
        .param("subject", f.subject())
        .param("payout", f.payoutId())
        .param("account", f.accountId())
        .param("detail", f.detail())
        .update();
  }

  /** How many findings of each class scan {@code scanKey} recorded. */
  public Map<Discrepancy, Long> scanCounts(String scanKey) {
    Map<Discrepancy, Long> counts = new EnumMap<>(Discrepancy.class);
    jdbc.sql(
            "SELECT discrepancy, count(*) FROM reconciliation_scan_finding WHERE scan_key = :scan"
                + " GROUP BY discrepancy")
        .param("scan", scanKey)
        .query((rs, i) -> Map.entry(rs.getString(1), rs.getLong(2)))
        .list()
        .forEach(e -> counts.put(Discrepancy.valueOf(e.getKey()), e.getValue()));
    return counts;
  }

  /** At most {@code limit} of the findings of one class scan {@code scanKey} recorded. */
  public List<Finding> scanFindings(String scanKey, Discrepancy discrepancy, int limit) {
    return jdbc.sql(
            """
            SELECT subject, payout_id::text, account_id, detail FROM reconciliation_scan_finding
             WHERE scan_key = :scan AND discrepancy = :d ORDER BY subject LIMIT :limit""")
        .param("scan", scanKey)
        .param("d", discrepancy.name())
        .param("limit", limit)
        .query(
            (rs, i) ->
                new Finding(
                    discrepancy,
                    rs.getString(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getString(4)))
        .list();
  }

  /** The client references of the recorded entries booked in {@code window}. */
  public Set<String> endToEndIdsBookedIn(ReconciliationWindow window) {
    return new HashSet<>(
        jdbc.sql(
                "SELECT DISTINCT end_to_end_id FROM reconciliation_statement_entry"
                    + " WHERE booked_at >= :from AND booked_at < :to")
            .param("from", Timestamp.from(window.from()))
            .param("to", Timestamp.from(window.to()))
            .query(String.class)
            .list());
  }

  /** How many recorded entries are booked in {@code window}. */
  public long countBookedIn(ReconciliationWindow window) {
    return jdbc.sql(
            "SELECT count(*) FROM reconciliation_statement_entry"
                + " WHERE booked_at >= :from AND booked_at < :to")
        .param("from", Timestamp.from(window.from()))
        .param("to", Timestamp.from(window.to()))
        .query(Long.class)
        .single();
  }

  /** How many entries scan {@code scanKey} was the first to record. */
  public long countFirstReadBy(String scanKey) {
    return jdbc.sql(
            "SELECT count(*) FROM reconciliation_statement_entry WHERE first_scan_key = :scan")
        .param("scan", scanKey)
        .query(Long.class)
        .single();
  }

  /** Every recorded entry of the given client references. */
  public List<StatementEntry> byEndToEndId(Collection<String> clientReferences) {
    if (clientReferences.isEmpty()) {
      return List.of();
    }
    List<StatementEntry> out = new ArrayList<>();
    List<String> refs = new ArrayList<>(clientReferences);
    for (int i = 0; i < refs.size(); i += 1000) {
      List<String> slice = refs.subList(i, Math.min(refs.size(), i + 1000));
      out.addAll(
          jdbc.sql(
                  """
                  SELECT entry_ref, end_to_end_id, amount_minor, currency, beneficiary_ref, booked_at
                    FROM reconciliation_statement_entry WHERE end_to_end_id IN (:refs)
                   ORDER BY entry_ref""")
              .param("refs", slice)
              .query(
                  (rs, n) ->
                      new StatementEntry(
                          rs.getString(1),
                          rs.getString(2),
                          rs.getLong(3),
                          rs.getString(4),
                          rs.getString(5),
                          rs.getTimestamp(6).toInstant()))
              .list());
    }
    return out;
  }
}
