package dev.fencepost.reconciliation;

import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

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

  public StatementEntryStore(DataSource paydb) {
    this.jdbc = JdbcClient.create(paydb);
    this.template = new JdbcTemplate(paydb);
  }

  /** Records every entry not yet recorded; returns how many were new. */
  public int record(List<StatementEntry> entries, String source) {
    if (entries.isEmpty()) {
      return 0;
    }
    int[][] counts =
        template.batchUpdate(
            """
            INSERT INTO reconciliation_statement_entry
              (entry_ref, end_to_end_id, amount_minor, currency, beneficiary_ref, booked_at, source)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (entry_ref) DO NOTHING""",
            entries,
            500,
            (ps, e) -> {
              ps.setString(1, e.entryReference());
              ps.setString(2, e.endToEndId());
              ps.setLong(3, e.amountMinor());
              ps.setString(4, e.currency());
              ps.setString(5, e.beneficiaryRef());
              ps.setTimestamp(6, Timestamp.from(e.bookedAt()));
              ps.setString(7, source);
            });
    int added = 0;
    for (int[] batch : counts) {
      for (int n : batch) {
        added += Math.max(n, 0);
      }
    }
    return added;
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
