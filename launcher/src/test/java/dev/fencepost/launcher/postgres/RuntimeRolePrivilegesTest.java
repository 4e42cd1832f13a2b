package dev.fencepost.launcher.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.db.Migration;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What each database's runtime role may not do (ADR 0160), on the four databases migrated by the
 * migration step as their owners, exactly as the local platform does it. The applications' own
 * tests, which connect as the runtime role, show that what it may do is enough.
 */
class RuntimeRolePrivilegesTest {

  private static final Map<String, PostgresDatabase> DATABASES = new java.util.HashMap<>();

  @BeforeAll
  static void migrate() {
    for (String db : new String[] {"lockdb", "paydb", "proxydb", "batchdb"}) {
      DATABASES.put(
          db,
          EmbeddedPostgresServer.shared()
              .createDatabase("roles_" + db)
              .applyChangelog("db/changelog/" + db + "/db.changelog-master.yaml"));
    }
  }

  /** Every evidence table, and a column of it. */
  static Stream<Arguments> evidence() {
    return Stream.of(
        Arguments.of("lockdb", "lock_event", "token"),
        Arguments.of("lockdb", "lock_audit", "reason"),
        Arguments.of("paydb", "audit_event", "reason"),
        Arguments.of("paydb", "ledger_group", "actor"),
        Arguments.of("paydb", "ledger_entry", "signed_amount"),
        Arguments.of("paydb", "reconciliation_finding", "detail"),
        Arguments.of("paydb", "reconciliation_class_count", "finding_count"),
        Arguments.of("paydb", "reconciliation_run", "window_from"),
        Arguments.of("paydb", "reconciliation_statement_entry", "amount_minor"),
        Arguments.of("paydb", "reconciliation_issue_event", "reason"),
        Arguments.of("paydb", "account", "id"),
        Arguments.of("paydb", "payout", "amount_minor"),
        Arguments.of("paydb", "account_balance_slot", "slot"),
        Arguments.of("proxydb", "rail_submission", "amount_minor"),
        Arguments.of("proxydb", "unguarded_submission", "amount_minor"),
        Arguments.of("proxydb", "submission_rejection", "reason"),
        Arguments.of("proxydb", "account_high_water", "account_id"),
        Arguments.of("proxydb", "high_water_repair", "to_high_water"));
  }

  @ParameterizedTest(name = "{0}.{1}")
  @MethodSource("evidence")
  void theRuntimeRoleMayNotRewriteDeleteOrTruncateEvidence(String db, String table, String column) {
    try (Connection runtime = runtime(db)) {
      assertPermissionDenied(runtime, "UPDATE " + table + " SET " + column + " = " + column);
      assertPermissionDenied(runtime, "DELETE FROM " + table);
      assertPermissionDenied(runtime, "TRUNCATE " + table);
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  /** TRUNCATE fires no row trigger: the statement triggers refuse it to anyone, the owner too. */
  @ParameterizedTest(name = "{0}.{1}")
  @MethodSource("evidence")
  void evenTheOwnerCannotTruncateEvidence(String db, String table, String column) {
    try (Connection owner = owner(db)) {
      assertThatThrownBy(() -> execute(owner, "TRUNCATE " + table + " CASCADE"))
          .isInstanceOf(SQLException.class)
          .hasMessageMatching("(?s).*(append-only|forbidden|refused).*");
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("databases")
  void theRuntimeRoleOwnsNothingAndCannotCreateAlterOrDisableATrigger(String db)
      throws SQLException {
    try (Connection runtime = runtime(db)) {
      assertThat(
              single(
                  runtime,
                  "SELECT (SELECT count(*) FROM pg_class WHERE relowner = r.oid)"
                      + " + (SELECT count(*) FROM pg_proc WHERE proowner = r.oid)"
                      + " + (SELECT count(*) FROM pg_namespace WHERE nspowner = r.oid)"
                      + " + (SELECT count(*) FROM pg_database WHERE datdba = r.oid)"
                      + " FROM pg_roles r WHERE r.rolname = current_user"))
          .isEqualTo("0");
      assertThat(single(runtime, "SELECT has_schema_privilege('public', 'CREATE')")).isEqualTo("f");
      assertPermissionDenied(runtime, "CREATE TABLE planted (id int)");
      String[] trigger = anyTrigger(runtime);
      assertPermissionDenied(
          runtime, "ALTER TABLE " + trigger[0] + " DISABLE TRIGGER " + trigger[1]);
      assertPermissionDenied(runtime, "ALTER TABLE " + trigger[0] + " DISABLE TRIGGER ALL");
      assertPermissionDenied(runtime, "SET session_replication_role = replica");
    }
  }

  static Stream<String> databases() {
    return Stream.of("lockdb", "paydb", "proxydb", "batchdb");
  }

  @Test
  void theLockServerRaisesTheTokenFloorButCannotMoveTheSequenceBackwards() throws SQLException {
    try (Connection runtime = runtime("lockdb")) {
      assertThat(single(runtime, "SELECT lock_token_floor(500)")).isEqualTo("500");
      assertThat(single(runtime, "SELECT lock_token_floor(7)")).isEqualTo("500");
      assertPermissionDenied(runtime, "SELECT setval('lock_token_seq', 1)");
      assertThat(single(runtime, "SELECT nextval('lock_token_seq')")).isEqualTo("501");
    }
  }

  @Test
  void theLockServerAcquiresThroughLockAcquireWhichRunsWithTheRuntimeRolesOwnGrants()
      throws SQLException {
    // ADR 0194: the runtime role may call it; it is not SECURITY DEFINER, so it can do nothing
    // the role could not do statement by statement; and no other role may call it.
    try (Connection runtime = runtime("lockdb")) {
      assertThat(
              single(
                  runtime,
                  "SELECT outcome FROM lock_acquire('roles:k', '00000000-0000-0000-0000-000000000000')"))
          .isEqualTo("NO_SESSION");
      assertThat(single(runtime, "SELECT prosecdef FROM pg_proc WHERE proname = 'lock_acquire'"))
          .isEqualTo("f");
      assertThat(
              single(
                  runtime,
                  "SELECT has_function_privilege('public', 'lock_acquire(text, uuid)', 'EXECUTE')"))
          .isEqualTo("f");
    }
  }

  @Test
  void theProxyRecordsAnOutcomeOnceAndAdvancesTheHighWaterButNeverLowersIt() throws SQLException {
    try (Connection runtime = runtime("proxydb")) {
      String id =
          single(
              runtime,
              "INSERT INTO rail_submission (payout_id, account_id, fencing_token,"
                  + " client_reference, amount_minor, currency, beneficiary_ref)"
                  + " VALUES ('p-roles', 'acc-roles', 7, 'fp-roles', 100, 'EUR', 'b-1') RETURNING id");
      execute(
          runtime,
          "UPDATE rail_submission SET outcome = 'ACKED', resolved_at = clock_timestamp()"
              + " WHERE id = "
              + id);
      assertThatThrownBy(
              () ->
                  execute(
                      runtime, "UPDATE rail_submission SET outcome = 'REJECTED' WHERE id = " + id))
          .hasMessageContaining("immutable");

      execute(
          runtime,
          "INSERT INTO account_high_water (account_id, high_water) VALUES ('acc-roles', 10)");
      execute(
          runtime, "UPDATE account_high_water SET high_water = 12 WHERE account_id = 'acc-roles'");
      assertThatThrownBy(
              () ->
                  execute(
                      runtime,
                      "UPDATE account_high_water SET high_water = 3 WHERE account_id = 'acc-roles'"))
          .hasMessageContaining("may not go backwards");
      assertPermissionDenied(runtime, "SET ROLE fencepost_high_water_repair");
      assertPermissionDenied(
          runtime, "SELECT repair_high_water('acc-roles', 12, 3, 'someone', 'because', '{}')");
    }
  }

  /**
   * ADR 0193: a posting adds to a system account's balance slot, and that is all the runtime role
   * does with slots; they are created by the changelog only, and only their balance moves.
   */
  @Test
  void theRuntimeRoleMovesABalanceSlotsBalanceButCannotAddOrRemoveASlot() throws SQLException {
    try (Connection runtime = runtime("paydb")) {
      String slot = " WHERE account_id = 'payout-clearing' AND slot = 4";
      execute(runtime, "UPDATE account_balance_slot SET balance_minor = balance_minor + 5" + slot);
      assertThat(single(runtime, "SELECT balance_minor FROM account_balance_slot" + slot))
          .isEqualTo("5");
      assertThat(
              single(
                  runtime,
                  "SELECT slots_minor FROM account_balance WHERE account_id = 'payout-clearing'"))
          .isEqualTo("5");
      execute(runtime, "UPDATE account_balance_slot SET balance_minor = balance_minor - 5" + slot);
      assertPermissionDenied(
          runtime,
          "INSERT INTO account_balance_slot (account_id, slot) VALUES ('payout-clearing', 15)");
      assertPermissionDenied(runtime, "DELETE FROM account_balance_slot" + slot);
      assertPermissionDenied(
          runtime, "UPDATE account_balance_slot SET account_id = 'funding-source'" + slot);
    }
  }

  @Test
  void theMigrationRefusesARuntimeRoleThatIsTheOwnerOrASuperuser() {
    PostgresDatabase lockdb = DATABASES.get("lockdb");
    for (String role : new String[] {lockdb.owner().username(), EmbeddedPostgresServer.USER}) {
      assertThatThrownBy(
              () ->
                  Migration.apply(
                      lockdb.jdbcUrl(),
                      lockdb.owner().username(),
                      lockdb.owner().password(),
                      Migration.Target.LOCKDB,
                      role))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("must be a role of its own");
    }
  }

  private static String[] anyTrigger(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
                    + " WHERE NOT t.tgisinternal ORDER BY 1, 2 LIMIT 1")) {
      if (rs.next()) {
        return new String[] {rs.getString(1), rs.getString(2)};
      }
    }
    // batchdb has no trigger of its own: the table is what matters, the name is checked later.
    return new String[] {"batch_job_instance", "any_trigger"};
  }

  private static Connection runtime(String db) throws SQLException {
    PostgresDatabase database = DATABASES.get(db);
    return DriverManager.getConnection(
        database.jdbcUrl(), database.runtime().username(), database.runtime().password());
  }

  private static Connection owner(String db) throws SQLException {
    PostgresDatabase database = DATABASES.get(db);
    return DriverManager.getConnection(
        database.jdbcUrl(), database.owner().username(), database.owner().password());
  }

  private static void assertPermissionDenied(Connection c, String sql) {
    assertThatThrownBy(() -> execute(c, sql))
        .as(sql)
        .isInstanceOfSatisfying(
            SQLException.class,
            e -> assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo("42501"));
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static String single(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
