package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Repairing a high-water that was set too high (ADR 0138, docs/rail.md "Repairing a high-water"):
 * only through {@code repair_high_water}, only by a member of {@code
 * fencepost_high_water_operator}, only from the expected value, never below a token the proxy
 * accepted a submission under, and audited in the same transaction. The proxy's runtime role can
 * neither call it nor lower a high-water itself.
 */
@Tag("INV-05")
class HighWaterRepairTest {

  @RegisterExtension
  static EmbeddedPostgresExtension proxydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/proxydb/db.changelog-master.yaml");

  static final long MAX = Long.MAX_VALUE;

  JdbcTemplate jdbc;

  @BeforeEach
  void roles() {
    jdbc = new JdbcTemplate(proxydb.dataSource());
    // Roles are per cluster: created once, whatever test database runs first.
    jdbc.execute(
        """
        DO $$
        BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'oncall_repair_test') THEN
            CREATE ROLE oncall_repair_test LOGIN PASSWORD 'oncall' IN ROLE fencepost_high_water_operator;
          END IF;
          IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'proxy_runtime_test') THEN
            CREATE ROLE proxy_runtime_test LOGIN PASSWORD 'runtime';
          END IF;
        END;
        $$
        """);
    // What the proxy's runtime role needs, and no more: read and write its tables.
    jdbc.execute(
        "GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO proxy_runtime_test");
  }

  @Test
  void anOperatorLowersAHighWaterRaisedByAForgedTokenAndTheRepairIsAudited() throws Exception {
    submission("acc-repair-1", "po-repair-1", 7);
    highWater("acc-repair-1", MAX);

    long auditId =
        asOperator(
            "acc-repair-1", MAX, 7, "oncall-jane", "max token forged before grants were signed");

    assertThat(highWaterOf("acc-repair-1")).isEqualTo(7);
    Map<String, Object> audit =
        jdbc.queryForMap("SELECT * FROM high_water_repair WHERE id = ?", auditId);
    assertThat(audit)
        .containsEntry("account_id", "acc-repair-1")
        .containsEntry("from_high_water", MAX)
        .containsEntry("to_high_water", 7L)
        .containsEntry("highest_accepted_token", 7L)
        .containsEntry("operator", "oncall-jane")
        .containsEntry("reason", "max token forged before grants were signed")
        .containsEntry("db_user", "oncall_repair_test");
    assertThatThrownBy(() -> jdbc.update("DELETE FROM high_water_repair WHERE id = ?", auditId))
        .hasMessageContaining("append-only");
  }

  @Test
  void aRepairBelowTheHighestAcceptedTokenIsRefusedAndChangesNothing() {
    submission("acc-repair-2", "po-repair-2", 7);
    highWater("acc-repair-2", 100);

    assertThatThrownBy(() -> asOperator("acc-repair-2", 100, 6, "oncall-jane", "too low"))
        .hasMessageContaining("may not go below it");

    assertThat(highWaterOf("acc-repair-2")).isEqualTo(100);
    assertThat(auditRows("acc-repair-2")).isZero();
  }

  @Test
  void aRepairFromAnotherThanTheExpectedValueIsRefused() {
    highWater("acc-repair-3", 100);

    assertThatThrownBy(() -> asOperator("acc-repair-3", 99, 5, "oncall-jane", "stale view"))
        .hasMessageContaining("not the expected 99");

    assertThat(highWaterOf("acc-repair-3")).isEqualTo(100);
  }

  @Test
  void aSubmissionTheOperatorDisownsDoesNotHoldTheFloorAndIsNamedInTheAudit() throws Exception {
    submission("acc-repair-4", "po-real", 7);
    submission("acc-repair-4", "po-forged", MAX);
    highWater("acc-repair-4", MAX);

    try (Connection c = connect("oncall_repair_test", "oncall");
        PreparedStatement s =
            c.prepareStatement("SELECT repair_high_water(?, ?, ?, ?, ?, ARRAY['po-forged'])")) {
      s.setString(1, "acc-repair-4");
      s.setLong(2, MAX);
      s.setLong(3, 7);
      s.setString(4, "oncall-jane");
      s.setString(5, "po-forged was submitted with a made-up token");
      s.executeQuery().close();
    }

    assertThat(highWaterOf("acc-repair-4")).isEqualTo(7);
    assertThat(
            jdbc.queryForObject(
                "SELECT disowned_payout_ids[1] FROM high_water_repair WHERE account_id = ?",
                String.class,
                "acc-repair-4"))
        .isEqualTo("po-forged");
  }

  @Test
  void theProxysRuntimeRoleCanNeitherCallTheRepairNorLowerAHighWaterItself() throws Exception {
    highWater("acc-repair-5", 100);

    try (Connection runtime = connect("proxy_runtime_test", "runtime")) {
      assertThatThrownBy(() -> call(runtime, "acc-repair-5", 100, 5, "proxy", "trying to lower"))
          .hasMessageContaining("permission denied for function repair_high_water");
      assertThatThrownBy(
              () ->
                  runtime
                      .createStatement()
                      .executeUpdate(
                          "UPDATE account_high_water SET high_water = 5"
                              + " WHERE account_id = 'acc-repair-5'"))
          .hasMessageContaining("may not go backwards");
    }

    assertThat(highWaterOf("acc-repair-5")).isEqualTo(100);
    assertThat(auditRows("acc-repair-5")).isZero();
  }

  @Test
  void negativeControlWithoutTheOwnerCheckTheRuntimeRoleCouldLowerDirectly() throws Exception {
    highWater("acc-repair-6", 100);
    jdbc.execute("ALTER TABLE account_high_water DISABLE TRIGGER account_high_water_update_guard");
    try (Connection runtime = connect("proxy_runtime_test", "runtime")) {
      runtime
          .createStatement()
          .executeUpdate(
              "UPDATE account_high_water SET high_water = 5 WHERE account_id = 'acc-repair-6'");
    } finally {
      jdbc.execute("ALTER TABLE account_high_water ENABLE TRIGGER account_high_water_update_guard");
    }

    assertThat(highWaterOf("acc-repair-6")).isEqualTo(5);
  }

  private long asOperator(String account, long expected, long to, String operator, String reason)
      throws SQLException {
    try (Connection c = connect("oncall_repair_test", "oncall")) {
      return call(c, account, expected, to, operator, reason);
    }
  }

  private static long call(
      Connection c, String account, long expected, long to, String operator, String reason)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT repair_high_water(?, ?, ?, ?, ?)")) {
      s.setString(1, account);
      s.setLong(2, expected);
      s.setLong(3, to);
      s.setString(4, operator);
      s.setString(5, reason);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static Connection connect(String user, String password) throws SQLException {
    return DriverManager.getConnection(proxydb.jdbcUrl(), user, password);
  }

  private void submission(String account, String payout, long token) {
    jdbc.update(
        "INSERT INTO rail_submission (payout_id, account_id, fencing_token, client_reference,"
            + " amount_minor, currency, beneficiary_ref) VALUES (?, ?, ?, ?, 100, 'EUR', 'ben')",
        payout,
        account,
        token,
        "cref-" + payout);
  }

  private void highWater(String account, long value) {
    jdbc.update(
        "INSERT INTO account_high_water (account_id, high_water) VALUES (?, ?)", account, value);
  }

  private long highWaterOf(String account) {
    return jdbc.queryForObject(
        "SELECT high_water FROM account_high_water WHERE account_id = ?", Long.class, account);
  }

  private int auditRows(String account) {
    return jdbc.queryForObject(
        "SELECT count(*) FROM high_water_repair WHERE account_id = ?", Integer.class, account);
  }
}
