package dev.fencepost.reconciliation;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Everything the reconciler must not change, as text: every row of paydb's money and audit tables,
 * the proxy's submissions (through its read API is not enough, so the whole proxydb is not
 * compared; the proxy is read over HTTP only), and the rail's ground truth. Two snapshots are equal
 * iff nothing changed (FR-26).
 */
record StoreSnapshot(Map<String, List<String>> paydb, String railMovements) {

  private static final List<String> TABLES =
      List.of("account", "payout", "ledger_group", "ledger_entry", "audit_event");

  static StoreSnapshot of(World world) {
    JdbcClient sql = world.sql;
    Map<String, List<String>> tables = new LinkedHashMap<>();
    for (String table : TABLES) {
      tables.put(
          table,
          sql.sql("SELECT t::text FROM " + table + " t ORDER BY t::text")
              .query(String.class)
              .list());
    }
    return new StoreSnapshot(tables, world.movements().toString());
  }
}
