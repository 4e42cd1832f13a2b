--liquibase formatted sql

--changeset fencepost:paydb-005 splitStatements:true
-- The reconciliation job's own record (UC-07, FR-26): one row per run, its per-class
-- counts (a zero is written too, so a silent reconciler is distinguishable from a healthy system),
-- and every finding. Only reconciliation-job writes these tables; it never writes money tables
-- except through payment-resource's fenced transitions (ADR 0037). See docs/reconciliation.md, ADR 0072.
CREATE TABLE reconciliation_run (
  id                   uuid        PRIMARY KEY,
  window_from          timestamptz NOT NULL,
  window_to            timestamptz NOT NULL,
  triggered_by         text        NOT NULL CHECK (length(trim(triggered_by)) > 0),
  status               text        NOT NULL CHECK (status IN ('RUNNING', 'COMPLETED', 'FAILED')),
  started_at           timestamptz NOT NULL,
  finished_at          timestamptz,
  finding_count        bigint      NOT NULL DEFAULT 0 CHECK (finding_count >= 0),
  page_count           bigint      NOT NULL DEFAULT 0 CHECK (page_count >= 0),
  ticket_count         bigint      NOT NULL DEFAULT 0 CHECK (ticket_count >= 0),
  resolved_settled     integer     NOT NULL DEFAULT 0,
  resolved_absent      integer     NOT NULL DEFAULT 0,
  still_ambiguous      integer     NOT NULL DEFAULT 0,
  oldest_ambiguous_age_seconds bigint,
  error                text,
  CONSTRAINT reconciliation_run_window CHECK (window_from < window_to),
  CONSTRAINT reconciliation_run_finished CHECK ((status = 'RUNNING') = (finished_at IS NULL))
);
CREATE INDEX reconciliation_run_started ON reconciliation_run (started_at);

CREATE TABLE reconciliation_class_count (
  run_id       uuid   NOT NULL REFERENCES reconciliation_run (id),
  discrepancy  text   NOT NULL,
  severity     text   NOT NULL CHECK (severity IN ('PAGE', 'TICKET')),
  finding_count bigint NOT NULL CHECK (finding_count >= 0),
  PRIMARY KEY (run_id, discrepancy)
);

CREATE TABLE reconciliation_finding (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id       uuid        NOT NULL REFERENCES reconciliation_run (id),
  discrepancy  text        NOT NULL,
  severity     text        NOT NULL CHECK (severity IN ('PAGE', 'TICKET')),
  subject      text        NOT NULL,
  payout_id    uuid,
  account_id   text,
  detail       text        NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reconciliation_finding_run ON reconciliation_finding (run_id, discrepancy);

-- Findings and counts are evidence for finance: append-only, like the ledger (the function is
-- paydb-003's).
CREATE TRIGGER reconciliation_finding_append_only BEFORE UPDATE OR DELETE ON reconciliation_finding
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER reconciliation_class_count_append_only BEFORE UPDATE OR DELETE ON reconciliation_class_count
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
