package dev.fencepost.payment.impl;

import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.AccountView;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutId;
import dev.fencepost.payment.PayoutState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.springframework.jdbc.core.RowMapper;

/** Row mappers for the two readable aggregates. */
final class Rows {

  static final String PAYOUT_COLUMNS =
      "id, account_id, amount_minor, currency, beneficiary_ref, state, client_reference,"
          + " claimed_by, token_stamp, failure_reason, rail_reference, version, created_at,"
          + " claimed_at, submitted_at, settled_at, finished_at, updated_at";

  /**
   * An account's columns over {@link #ACCOUNT_FROM}: its balance is the whole balance, base plus
   * slots (ADR 0193), never the account row's own column, which for a system account is only the
   * base.
   */
  static final String ACCOUNT_COLUMNS =
      "a.id, a.kind, a.currency, b.balance_minor, a.fence, a.version, a.created_at, a.updated_at";

  /** The account as {@code a}, its whole balance as {@code b}. */
  static final String ACCOUNT_FROM = "account a JOIN account_balance b ON b.account_id = a.id";

  static final RowMapper<Payout> PAYOUT =
      (rs, row) ->
          new Payout(
              PayoutId.of(rs.getObject("id", UUID.class)),
              AccountId.of(rs.getString("account_id")),
              rs.getLong("amount_minor"),
              rs.getString("currency"),
              rs.getString("beneficiary_ref"),
              PayoutState.valueOf(rs.getString("state")),
              rs.getString("client_reference"),
              rs.getString("claimed_by"),
              rs.getObject("token_stamp", Long.class),
              rs.getString("failure_reason"),
              rs.getString("rail_reference"),
              rs.getLong("version"),
              instant(rs, "created_at"),
              instant(rs, "claimed_at"),
              instant(rs, "submitted_at"),
              instant(rs, "settled_at"),
              instant(rs, "finished_at"),
              instant(rs, "updated_at"));

  static final RowMapper<AccountView> ACCOUNT =
      (rs, row) ->
          new AccountView(
              AccountId.of(rs.getString("id")),
              AccountView.Kind.valueOf(rs.getString("kind")),
              rs.getString("currency"),
              rs.getLong("balance_minor"),
              rs.getLong("fence"),
              rs.getLong("version"),
              instant(rs, "created_at"),
              instant(rs, "updated_at"));

  private Rows() {}

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }
}
