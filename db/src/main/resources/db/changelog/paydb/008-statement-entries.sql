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
  first_scan_key  text        NOT NULL,
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

-- What one scan of a window's statement found, entry by entry (ADR 0178), keyed by scan, class
-- and subject: a chunk written twice (a step restarted after a crash between paydb's commit and
-- the job repository's) records nothing twice. A scan is a run's, or a job execution's window pass.
CREATE TABLE reconciliation_scan_finding (
  scan_key     text        NOT NULL,
  discrepancy  text        NOT NULL,
  severity     text        NOT NULL CHECK (severity IN ('PAGE', 'TICKET')),
  subject      text        NOT NULL,
  payout_id    uuid,
  account_id   text,
  detail       text        NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (scan_key, discrepancy, subject)
);
CREATE TRIGGER reconciliation_scan_finding_append_only
  BEFORE UPDATE OR DELETE ON reconciliation_scan_finding
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER reconciliation_scan_finding_no_truncate
  BEFORE TRUNCATE ON reconciliation_scan_finding
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();
CREATE INDEX reconciliation_statement_entry_scan ON reconciliation_statement_entry (first_scan_key);

--changeset fencepost:paydb-008-statement-entries-grants runOnChange:true splitStatements:true
GRANT SELECT, INSERT ON reconciliation_statement_entry TO ${runtime_role};
GRANT SELECT, INSERT ON reconciliation_scan_finding TO ${runtime_role};
