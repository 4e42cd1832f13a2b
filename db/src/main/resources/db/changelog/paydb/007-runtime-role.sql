--liquibase formatted sql

-- The runtime role (ADR 0160): payment-resource (in payout-job and reconciliation-job) and
-- reconciliation's run store connect as ${runtime_role}, which owns nothing and holds only the
-- grants below: no UPDATE of the ledger, the audit trail or the findings, only the columns of an
-- account and a payout that the fenced transitions write, and no DELETE or TRUNCATE anywhere.
-- Tested in launcher: RuntimeRolePrivilegesTest.

--changeset fencepost:paydb-007-reconciliation-evidence splitStatements:false
-- A reconciliation run is evidence once it has finished (its counts are what finance reads): it is
-- never deleted, and only a RUNNING run is brought to its end; what was asked (its window, who
-- triggered it, when it started) never changes.
CREATE FUNCTION paydb_reconciliation_run_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status <> 'RUNNING' THEN
    RAISE EXCEPTION 'paydb: reconciliation run % has finished (%) and is immutable', OLD.id, OLD.status;
  END IF;
  IF NEW.id <> OLD.id OR NEW.window_from <> OLD.window_from OR NEW.window_to <> OLD.window_to
     OR NEW.triggered_by <> OLD.triggered_by OR NEW.started_at <> OLD.started_at THEN
    RAISE EXCEPTION 'paydb: what reconciliation run % was asked to do is immutable', OLD.id;
  END IF;
  RETURN NEW;
END
$$;

--changeset fencepost:paydb-007-reconciliation-triggers splitStatements:true
CREATE TRIGGER reconciliation_run_guard BEFORE UPDATE ON reconciliation_run
  FOR EACH ROW EXECUTE FUNCTION paydb_reconciliation_run_guard();
CREATE TRIGGER reconciliation_run_never_deleted BEFORE DELETE ON reconciliation_run
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER reconciliation_run_no_truncate BEFORE TRUNCATE ON reconciliation_run
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER reconciliation_finding_no_truncate BEFORE TRUNCATE ON reconciliation_finding
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER reconciliation_class_count_no_truncate BEFORE TRUNCATE ON reconciliation_class_count
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();

--changeset fencepost:paydb-007-runtime-grants runOnChange:true splitStatements:true
-- Exactly the statements of payment-resource (Accounts, Payouts, AccountFence, Ledger, AuditLog,
-- PayoutIntake, the read models) and reconciliation-job's RunStore. SELECT ... FOR UPDATE on an
-- account needs UPDATE on one of its columns, which the fence and the balance give.
GRANT SELECT, INSERT ON account TO ${runtime_role};
GRANT UPDATE (fence, balance_minor, version, updated_at) ON account TO ${runtime_role};
GRANT SELECT, INSERT ON payout TO ${runtime_role};
GRANT UPDATE (state, token_stamp, version, updated_at, claimed_by, claimed_at, submitted_at, rail_reference, settled_at, failure_reason, finished_at) ON payout TO ${runtime_role};
GRANT SELECT, INSERT ON ledger_group, ledger_entry, audit_event TO ${runtime_role};
GRANT SELECT, INSERT ON reconciliation_run TO ${runtime_role};
GRANT UPDATE (status, finished_at, finding_count, page_count, ticket_count, resolved_settled, resolved_absent, still_ambiguous, oldest_ambiguous_age_seconds, error) ON reconciliation_run TO ${runtime_role};
GRANT SELECT, INSERT ON reconciliation_class_count, reconciliation_finding TO ${runtime_role};
