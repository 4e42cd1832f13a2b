--liquibase formatted sql

--changeset fencepost:paydb-008-statement-entries splitStatements:true
-- Every entry of the rail's camt.053 statements the reconciler has read (ADR 0176), keyed by the
-- entry's reference (NtryRef, the rail reference): one row per movement however often its
-- statement is read, so a reference's whole history is here for the duplicate check, and an
-- entry that arrives after its window was read is recorded when it does (ADR 0177). Evidence of
-- what the rail said: append-only, like the findings.
CREATE TABLE reconciliation_statement_entry (
  entry_ref       text        PRIMARY KEY CHECK (length(entry_ref) BETWEEN 1 AND 35),
  end_to_end_id   text        NOT NULL CHECK (length(end_to_end_id) BETWEEN 1 AND 140),
  amount_minor    bigint      NOT NULL CHECK (amount_minor > 0),
  currency        text        NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  beneficiary_ref text,
  booked_at       timestamptz NOT NULL,
  source          text        NOT NULL,
  first_read_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX reconciliation_statement_entry_e2e ON reconciliation_statement_entry (end_to_end_id);
CREATE INDEX reconciliation_statement_entry_booked ON reconciliation_statement_entry (booked_at);

CREATE TRIGGER reconciliation_statement_entry_append_only
  BEFORE UPDATE OR DELETE ON reconciliation_statement_entry
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER reconciliation_statement_entry_no_truncate
  BEFORE TRUNCATE ON reconciliation_statement_entry
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();

--changeset fencepost:paydb-008-statement-entries-grants runOnChange:true splitStatements:true
GRANT SELECT, INSERT ON reconciliation_statement_entry TO ${runtime_role};
