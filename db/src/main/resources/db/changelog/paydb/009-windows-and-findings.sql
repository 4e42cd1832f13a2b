--liquibase formatted sql

--changeset fencepost:paydb-009-windows splitStatements:true
-- Every window the reconciler reconciles on its own (ADR 0177): one row per window and pass, FIRST
-- once the window has closed and REREAD once more after the late-entry grace, so that catch-up
-- knows which windows are done, a window is completed once per pass, and what each pass read and
-- found is on record. A FAILED or RUNNING (crashed) pass is tried again; a COMPLETED one is final.
CREATE TABLE reconciliation_window (
  window_from       timestamptz NOT NULL,
  window_to         timestamptz NOT NULL,
  pass              text        NOT NULL CHECK (pass IN ('FIRST', 'REREAD')),
  status            text        NOT NULL CHECK (status IN ('RUNNING', 'COMPLETED', 'FAILED')),
  attempts          integer     NOT NULL DEFAULT 1 CHECK (attempts >= 1),
  run_id            uuid        REFERENCES reconciliation_run (id),
  entries_read      bigint      CHECK (entries_read >= 0),
  entries_new       bigint      CHECK (entries_new >= 0),
  submissions_read  bigint      CHECK (submissions_read >= 0),
  finding_count     bigint      CHECK (finding_count >= 0),
  page_count        bigint      CHECK (page_count >= 0),
  started_at        timestamptz NOT NULL,
  finished_at       timestamptz,
  error             text,
  PRIMARY KEY (window_from, pass),
  CONSTRAINT reconciliation_window_order CHECK (window_from < window_to),
  CONSTRAINT reconciliation_window_finished CHECK ((status = 'RUNNING') = (finished_at IS NULL))
);
CREATE INDEX reconciliation_window_status ON reconciliation_window (pass, status, window_from);

-- The findings as things a person owns (ADR 0179): one row per discrepancy class and subject,
-- however many runs and windows find it, with its lifecycle. The per-run rows of
-- reconciliation_finding stay what each run saw.
CREATE TABLE reconciliation_issue (
  id                 bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  discrepancy        text        NOT NULL,
  severity           text        NOT NULL CHECK (severity IN ('PAGE', 'TICKET')),
  subject            text        NOT NULL,
  payout_id          uuid,
  account_id         text,
  detail             text        NOT NULL,
  status             text        NOT NULL DEFAULT 'OPEN'
                                 CHECK (status IN ('OPEN', 'ACKNOWLEDGED', 'RESOLVED', 'REOPENED')),
  first_found_at     timestamptz NOT NULL,
  last_found_at      timestamptz NOT NULL,
  first_run_id       uuid        NOT NULL REFERENCES reconciliation_run (id),
  last_run_id        uuid        NOT NULL REFERENCES reconciliation_run (id),
  times_found        bigint      NOT NULL DEFAULT 1 CHECK (times_found >= 1),
  status_changed_at  timestamptz NOT NULL,
  CONSTRAINT reconciliation_issue_key UNIQUE (discrepancy, subject)
);
CREATE INDEX reconciliation_issue_status ON reconciliation_issue (status, severity, last_found_at);

-- Every change of an issue's status, who made it, when and why: the audit trail (append-only).
CREATE TABLE reconciliation_issue_event (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  issue_id     bigint      NOT NULL REFERENCES reconciliation_issue (id),
  from_status  text,
  to_status    text        NOT NULL,
  actor_role   text        NOT NULL CHECK (actor_role IN ('RECONCILER', 'OPERATOR')),
  actor        text        NOT NULL CHECK (length(trim(actor)) > 0),
  reason       text,
  run_id       uuid        REFERENCES reconciliation_run (id),
  at           timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX reconciliation_issue_event_issue ON reconciliation_issue_event (issue_id, id);
CREATE TRIGGER reconciliation_issue_event_append_only BEFORE UPDATE OR DELETE ON reconciliation_issue_event
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER reconciliation_issue_event_no_truncate BEFORE TRUNCATE ON reconciliation_issue_event
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER reconciliation_issue_no_delete BEFORE DELETE ON reconciliation_issue
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER reconciliation_issue_no_truncate BEFORE TRUNCATE ON reconciliation_issue
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER reconciliation_window_no_delete BEFORE DELETE ON reconciliation_window
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER reconciliation_window_no_truncate BEFORE TRUNCATE ON reconciliation_window
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();

--changeset fencepost:paydb-009-window-guard splitStatements:false
-- A completed pass is final, and what a window is never changes.
CREATE FUNCTION paydb_reconciliation_window_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'COMPLETED' THEN
    RAISE EXCEPTION 'paydb: reconciliation window % (%) is completed and immutable', OLD.window_from, OLD.pass;
  END IF;
  IF NEW.window_from <> OLD.window_from OR NEW.window_to <> OLD.window_to OR NEW.pass <> OLD.pass THEN
    RAISE EXCEPTION 'paydb: what reconciliation window % is, is immutable', OLD.window_from;
  END IF;
  RETURN NEW;
END
$$;

--changeset fencepost:paydb-009-window-guard-trigger splitStatements:true
CREATE TRIGGER reconciliation_window_guard BEFORE UPDATE ON reconciliation_window
  FOR EACH ROW EXECUTE FUNCTION paydb_reconciliation_window_guard();

--changeset fencepost:paydb-009-grants runOnChange:true splitStatements:true
GRANT SELECT, INSERT ON reconciliation_window TO ${runtime_role};
GRANT UPDATE (status, attempts, run_id, entries_read, entries_new, submissions_read, finding_count, page_count, started_at, finished_at, error) ON reconciliation_window TO ${runtime_role};
GRANT SELECT, INSERT ON reconciliation_issue TO ${runtime_role};
GRANT UPDATE (detail, status, last_found_at, last_run_id, times_found, status_changed_at) ON reconciliation_issue TO ${runtime_role};
GRANT SELECT, INSERT ON reconciliation_issue_event TO ${runtime_role};
