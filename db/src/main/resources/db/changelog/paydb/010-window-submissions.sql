--liquibase formatted sql

--changeset fencepost:paydb-010-window-submissions splitStatements:true
-- The rail proxy's submissions of the window being compared, copied here page by page from the
-- proxy's read API for the length of one comparison (ADR 0187), so that the comparison joins them
-- with payouts, postings and statement entries in SQL a page at a time instead of holding a
-- window's submissions in the reconciler's heap. A working copy, not evidence: the proxy's
-- rail_submission is the record, a comparison deletes its rows when it ends and a restarted one
-- starts its copy again, which is why the runtime role may delete here and why the table is
-- UNLOGGED (a crash loses only a copy that is rebuilt, and a window's copy writes no WAL).
CREATE UNLOGGED TABLE reconciliation_window_submission (
  scan_key         text        NOT NULL,
  submission_id    bigint      NOT NULL,
  payout_id        text        NOT NULL,
  account_id       text,
  fencing_token    bigint      NOT NULL,
  client_reference text,
  outcome          text,
  rail_reference   text,
  created_at       timestamptz,
  amount_minor     bigint      NOT NULL,
  currency         text,
  beneficiary_ref  text,
  PRIMARY KEY (scan_key, submission_id)
);
CREATE INDEX reconciliation_window_submission_ref
  ON reconciliation_window_submission (scan_key, client_reference);
CREATE INDEX reconciliation_window_submission_payout
  ON reconciliation_window_submission (scan_key, payout_id);

--changeset fencepost:paydb-010-window-submissions-grants runOnChange:true splitStatements:true
GRANT SELECT, INSERT, UPDATE, DELETE ON reconciliation_window_submission TO ${runtime_role};

--changeset fencepost:paydb-010-posting-window-index splitStatements:true
-- The comparison reads a window's payout postings in keyset pages ordered by (created_at, id)
-- (ADR 0168, 0187): without an index on that order, every page sorted every posting again, so a
-- window of a million postings cost a million-row sort two thousand times.
CREATE INDEX ledger_group_posting_created ON ledger_group (created_at, id)
  WHERE kind = 'PAYOUT_POSTING';
