package dev.fencepost.history;

import dev.fencepost.history.Records.Account;
import dev.fencepost.history.Records.Grant;
import dev.fencepost.history.Records.GuardDecision;
import dev.fencepost.history.Records.LedgerEntry;
import dev.fencepost.history.Records.Payout;
import dev.fencepost.history.Records.RailMovement;
import dev.fencepost.history.Records.Submission;
import dev.fencepost.history.Records.Transition;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * Reads the final state of the stores into history records, from the tables as the db module's
 * changelogs define them (paydb 001-003 and 011, proxydb 001, lockdb 001) and from the rail stub's
 * {@code GET /rail/admin/movements}. Read-only: plain SELECTs, no Fencepost code, and none of the
 * views the changelogs define for Fencepost's own readers.
 */
public final class Extractors {

  private Extractors() {}

  /** paydb: account, payout, ledger_entry, and audit_event as transitions and guard decisions. */
  public static List<Object> paydb(Connection c) throws SQLException {
    List<Object> out = new ArrayList<>();
    // An account's balance is its row's plus its balance slots' (paydb 011: a system account's
    // movements land on slots, its row keeps the base it had before; a customer has no slots).
    query(
        c,
        "SELECT a.id, a.balance_minor + coalesce((SELECT sum(s.balance_minor)"
            + " FROM account_balance_slot s WHERE s.account_id = a.id), 0), a.fence"
            + " FROM account a ORDER BY a.id",
        rs -> out.add(new Account("paydb", rs.getString(1), rs.getLong(2), rs.getLong(3))));
    query(
        c,
        "SELECT id::text, account_id, state, client_reference, token_stamp, rail_reference"
            + " FROM payout ORDER BY created_at, id",
        rs ->
            out.add(
                new Payout(
                    "paydb",
                    rs.getString(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getString(4),
                    nullableLong(rs, 5),
                    rs.getString(6))));
    query(
        c,
        "SELECT group_id::text, account_id, signed_amount, payout_id::text, fencing_token"
            + " FROM ledger_entry ORDER BY id",
        rs ->
            out.add(
                new LedgerEntry(
                    "paydb",
                    rs.getString(1),
                    rs.getString(2),
                    rs.getLong(3),
                    rs.getString(4),
                    nullableLong(rs, 5))));
    query(
        c,
        "SELECT id, occurred_at, actor_role, actor_id, fencing_token, account_id,"
            + " payout_id::text, action, from_state, to_state FROM audit_event ORDER BY id",
        rs -> {
          long id = rs.getLong(1);
          Instant at = instant(rs.getTimestamp(2));
          String role = rs.getString(3);
          String actor = rs.getString(4);
          Long token = nullableLong(rs, 5);
          String account = rs.getString(6);
          String payout = rs.getString(7);
          String toState = rs.getString(10);
          if (payout != null && toState != null) {
            out.add(
                new Transition(
                    "paydb",
                    payout,
                    account,
                    rs.getString(9),
                    toState,
                    token,
                    role + ":" + actor,
                    id,
                    at));
          }
          // Every audited non-fixture action committed behind the account fence (ADR 0037): an
          // accepted
          // write of the paydb guard. Rejected attempts roll back and leave no row here.
          if (token != null && !"FIXTURE".equals(role) && !"INTAKE".equals(role)) {
            out.add(
                new GuardDecision(
                    "paydb",
                    "PAYDB",
                    account,
                    payout,
                    token,
                    null,
                    "ACCEPTED",
                    rs.getString(8),
                    actor,
                    id,
                    null,
                    at));
          }
        });
    return out;
  }

  /**
   * proxydb: rail_submission (and unguarded_submission, the negative control) as submissions and
   * accepted proxy decisions; submission_rejection as rejected ones.
   */
  public static List<Object> proxydb(Connection c) throws SQLException {
    List<Object> out = new ArrayList<>();
    for (String table : List.of("rail_submission", "unguarded_submission")) {
      boolean guarded = table.equals("rail_submission");
      query(
          c,
          "SELECT id, payout_id, account_id, fencing_token, outcome, client_reference, created_at"
              + " FROM "
              + table
              + " ORDER BY id",
          rs -> {
            Instant at = instant(rs.getTimestamp(7));
            out.add(
                new Submission(
                    "proxydb",
                    rs.getString(2),
                    rs.getString(3),
                    rs.getLong(4),
                    rs.getString(5),
                    rs.getString(6),
                    guarded,
                    rs.getLong(1),
                    at));
            out.add(
                new GuardDecision(
                    "proxydb",
                    "RAIL_PROXY",
                    rs.getString(3),
                    rs.getString(2),
                    rs.getLong(4),
                    null,
                    "ACCEPTED",
                    guarded ? null : "UNGUARDED",
                    null,
                    null,
                    null,
                    at));
          });
    }
    query(
        c,
        "SELECT id, reason, payout_id, account_id, presented_token, high_water, created_at"
            + " FROM submission_rejection ORDER BY id",
        rs ->
            out.add(
                new GuardDecision(
                    "proxydb",
                    "RAIL_PROXY",
                    rs.getString(4),
                    rs.getString(3),
                    rs.getLong(5),
                    nullableLong(rs, 6),
                    "REJECTED",
                    rs.getString(2),
                    null,
                    null,
                    null,
                    instant(rs.getTimestamp(7)))));
    return out;
  }

  /** lockdb: lock_event, the PostgreSQL backend's grant history, written in the grant's tx. */
  public static List<Object> lockdb(Connection c) throws SQLException {
    List<Object> out = new ArrayList<>();
    query(
        c,
        "SELECT id, lock_key, token, session_id::text, kind, at FROM lock_event ORDER BY id",
        rs ->
            out.add(
                new Grant(
                    "lockdb",
                    rs.getString(2),
                    rs.getLong(3),
                    rs.getString(5),
                    rs.getString(4),
                    rs.getLong(1),
                    instant(rs.getTimestamp(6)))));
    return out;
  }

  /**
   * The stub's ground truth: every movement it received, visible or not. The stub serves it to an
   * operator or the reconciler only: {@code bearerToken} is such a caller's token (null sends
   * none).
   */
  public static List<Object> railMovements(URI stubBaseUrl, String bearerToken)
      throws IOException, InterruptedException {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(stubBaseUrl.resolve("/rail/admin/movements"))
            .timeout(Duration.ofSeconds(30))
            .GET();
    if (bearerToken != null) {
      request.header("Authorization", "Bearer " + bearerToken);
    }
    HttpResponse<String> response =
        client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(
          "GET /rail/admin/movements answered " + response.statusCode() + ": " + response.body());
    }
    return railMovements(response.body());
  }

  /** Parses the body of {@code GET /rail/admin/movements}: {@code {"movements": [...]}}. */
  public static List<Object> railMovements(String body) {
    JsonNode movements = HistoryFiles.JSON.readTree(body).get("movements");
    if (movements == null || !movements.isArray()) {
      throw new IllegalArgumentException("no movements array in the stub's answer");
    }
    List<Object> out = new ArrayList<>();
    for (JsonNode m : movements) {
      JsonNode received = m.get("receivedAt");
      JsonNode amount = m.get("amountMinor");
      out.add(
          new RailMovement(
              "rail-stub",
              text(m, "clientReference"),
              text(m, "railReference"),
              amount == null || amount.isNull() ? null : amount.asLong(),
              received == null || received.isNull() ? null : Instant.parse(received.asString())));
    }
    return out;
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v == null || v.isNull() ? null : v.asString();
  }

  private interface Row {
    void read(ResultSet rs) throws SQLException;
  }

  private static void query(Connection c, String sql, Row row) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        row.read(rs);
      }
    }
  }

  private static Long nullableLong(ResultSet rs, int column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : v;
  }

  private static Instant instant(Timestamp ts) {
    return ts == null ? null : ts.toInstant();
  }
}
