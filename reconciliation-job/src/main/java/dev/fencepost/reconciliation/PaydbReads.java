package dev.fencepost.reconciliation;

import dev.fencepost.payment.SubmittedContent;
import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The reconciler's read-only queries over paydb: the classification inputs that payment-resource's
 * public read API does not offer (lookups by client reference, postings by window, ageing). Reads
 * only; every payout transition goes through payment-resource's fenced methods (ADR 0037).
 */
public class PaydbReads {

  /** What the comparison needs to know about one payout. */
  public record PayoutFacts(
      String payoutId,
      String accountId,
      String state,
      String clientReference,
      Instant submittedAt,
      Instant settledAt,
      Instant updatedAt,
      boolean posted,
      long amountMinor,
      String currency,
      String beneficiaryRef) {

    /** What a submission of this payout carries (ADR 0140). */
    public SubmittedContent content() {
      return new SubmittedContent(
          accountId, amountMinor, currency, beneficiaryRef, clientReference);
    }
  }

  /** A payout posting group. */
  public record Posting(String groupId, String payoutId, String accountId, Instant createdAt) {}

  /** An ambiguous payout and since when it has been possibly-moved money. */
  public record Ambiguous(String payoutId, String accountId, Instant since) {}

  private static final String FACTS =
      """
      SELECT p.id::text AS id, p.account_id, p.state, p.client_reference, p.submitted_at,
             p.settled_at, p.updated_at, p.amount_minor, p.currency, p.beneficiary_ref,
             EXISTS (SELECT 1 FROM ledger_group g
                      WHERE g.payout_id = p.id AND g.kind = 'PAYOUT_POSTING') AS posted
        FROM payout p""";

  private final JdbcClient jdbc;
  private final JdbcTemplate template;
  private final int postingPageSize;

  public PaydbReads(DataSource paydb) {
    this(paydb, 500);
  }

  /**
   * @param postingPageSize postings per page of {@link #forEachPostingIn}
   */
  public PaydbReads(DataSource paydb, int postingPageSize) {
    if (postingPageSize < 1) {
      throw new IllegalArgumentException("postingPageSize must be positive");
    }
    this.postingPageSize = postingPageSize;
    this.jdbc = JdbcClient.create(paydb);
    this.template = new JdbcTemplate(paydb);
  }

  /** Payouts by client reference (the rail's key); references with no payout are absent. */
  public Map<String, PayoutFacts> byClientReference(Collection<String> clientReferences) {
    Map<String, PayoutFacts> found = new HashMap<>();
    for (PayoutFacts f : facts("p.client_reference = ANY(?)", "text", clientReferences)) {
      found.put(f.clientReference(), f);
    }
    return found;
  }

  /** Payouts by id; ids that are not UUIDs or not in paydb are absent. */
  public Map<String, PayoutFacts> byId(Collection<String> payoutIds) {
    List<String> uuids = new ArrayList<>();
    for (String id : payoutIds) {
      if (id != null
          && id.matches(
              "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")) {
        uuids.add(id);
      }
    }
    Map<String, PayoutFacts> found = new HashMap<>();
    // Compared as uuid, not as text: a cast of the column would read every payout (no index).
    for (PayoutFacts f : facts("p.id = ANY(CAST(? AS uuid[]))", "text", uuids)) {
      found.put(f.payoutId(), f);
    }
    return found;
  }

  /**
   * Payout postings whose group was written inside the window, oldest first, handed to {@code each}
   * a keyset page at a time so that a window's postings are never held whole (ADR 0168).
   */
  public void forEachPostingIn(ReconciliationWindow window, Consumer<Posting> each) {
    forEachPostingPageIn(window, page -> page.forEach(each));
  }

  /** The same, a keyset page at a time. */
  public void forEachPostingPageIn(ReconciliationWindow window, Consumer<List<Posting>> each) {
    Timestamp afterAt = null;
    String afterId = null;
    while (true) {
      var query =
          jdbc.sql(
                  """
                  SELECT g.id::text AS gid, g.payout_id::text AS pid, p.account_id, g.created_at
                    FROM ledger_group g JOIN payout p ON p.id = g.payout_id
                   WHERE g.kind = 'PAYOUT_POSTING' AND g.created_at >= :from AND g.created_at < :to
                  """
                      + (afterAt == null
                          ? ""
                          : " AND (g.created_at, g.id) > (:afterAt, CAST(:afterId AS uuid))")
                      + " ORDER BY g.created_at, g.id LIMIT :limit")
              .param("from", Timestamp.from(window.from()))
              .param("to", Timestamp.from(window.to()))
              .param("limit", postingPageSize);
      if (afterAt != null) {
        query = query.param("afterAt", afterAt).param("afterId", afterId);
      }
      List<Posting> page =
          query
              .query(
                  (rs, i) ->
                      new Posting(
                          rs.getString("gid"),
                          rs.getString("pid"),
                          rs.getString("account_id"),
                          rs.getTimestamp("created_at").toInstant()))
              .list();
      if (!page.isEmpty()) {
        each.accept(page);
      }
      if (page.size() < postingPageSize) {
        return;
      }
      Posting last = page.get(page.size() - 1);
      afterAt = Timestamp.from(last.createdAt());
      afterId = last.groupId();
    }
  }

  /** Every RAIL_AMBIGUOUS payout, oldest first (a page of at most {@code limit}). */
  public List<Ambiguous> ambiguous(int limit) {
    return jdbc.sql(
            """
            SELECT id::text AS id, account_id, coalesce(submitted_at, updated_at) AS since
              FROM payout WHERE state = 'RAIL_AMBIGUOUS'
             ORDER BY since, id LIMIT :limit""")
        .param("limit", limit)
        .query(
            (rs, i) ->
                new Ambiguous(
                    rs.getString("id"),
                    rs.getString("account_id"),
                    rs.getTimestamp("since").toInstant()))
        .list();
  }

  /** How many RAIL_AMBIGUOUS payouts have been so since before {@code cutoff}. */
  public long ambiguousSinceBefore(Instant cutoff) {
    return jdbc.sql(
            "SELECT count(*) FROM payout WHERE state = 'RAIL_AMBIGUOUS'"
                + " AND coalesce(submitted_at, updated_at) < :cutoff")
        .param("cutoff", Timestamp.from(cutoff))
        .query(Long.class)
        .single();
  }

  /** Since when the oldest ambiguous payout has been ambiguous; empty when there is none. */
  public Optional<Instant> oldestAmbiguousSince() {
    Timestamp oldest =
        jdbc.sql(
                "SELECT min(coalesce(submitted_at, updated_at)) FROM payout"
                    + " WHERE state = 'RAIL_AMBIGUOUS'")
            .query(Timestamp.class)
            .optional()
            .orElse(null);
    return Optional.ofNullable(oldest).map(Timestamp::toInstant);
  }

  /** The database's clock, so ages are measured on the clock that stamped the rows. */
  public Instant now() {
    return jdbc.sql("SELECT clock_timestamp()").query(Timestamp.class).single().toInstant();
  }

  private List<PayoutFacts> facts(String predicate, String type, Collection<String> values) {
    if (values.isEmpty()) {
      return List.of();
    }
    return template.execute(
        (ConnectionCallback<List<PayoutFacts>>)
            connection -> query(connection, predicate, type, values));
  }

  private static List<PayoutFacts> query(
      Connection connection, String predicate, String type, Collection<String> values)
      throws SQLException {
    Array array = connection.createArrayOf(type, values.toArray());
    try (var statement = connection.prepareStatement(FACTS + " WHERE " + predicate)) {
      statement.setArray(1, array);
      List<PayoutFacts> out = new ArrayList<>();
      try (var rs = statement.executeQuery()) {
        while (rs.next()) {
          out.add(
              new PayoutFacts(
                  rs.getString("id"),
                  rs.getString("account_id"),
                  rs.getString("state"),
                  rs.getString("client_reference"),
                  instant(rs.getTimestamp("submitted_at")),
                  instant(rs.getTimestamp("settled_at")),
                  instant(rs.getTimestamp("updated_at")),
                  rs.getBoolean("posted"),
                  rs.getLong("amount_minor"),
                  rs.getString("currency"),
                  rs.getString("beneficiary_ref")));
        }
      }
      return out;
    } finally {
      array.free();
    }
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}
