--liquibase formatted sql

-- Rules the database holds by itself, so they survive a bug in any caller (including ours).
-- Tested in payment-resource: PaydbSchemaTest.

--changeset fencepost:paydb-003-refuse-change splitStatements:false
-- Evidence is never edited or removed: ledger rows (INV-03; a correction is a new compensating
-- group), the audit trail (FR-30), and accounts and payouts (finance evidence).
CREATE FUNCTION paydb_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'paydb: % on % is refused: the table is append-only evidence', TG_OP, TG_TABLE_NAME;
END
$$;

--changeset fencepost:paydb-003-append-only splitStatements:true
CREATE TRIGGER ledger_group_append_only BEFORE UPDATE OR DELETE ON ledger_group
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER ledger_group_no_truncate BEFORE TRUNCATE ON ledger_group
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER ledger_entry_append_only BEFORE UPDATE OR DELETE ON ledger_entry
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER ledger_entry_no_truncate BEFORE TRUNCATE ON ledger_entry
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER audit_event_append_only BEFORE UPDATE OR DELETE ON audit_event
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER audit_event_no_truncate BEFORE TRUNCATE ON audit_event
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER account_never_deleted BEFORE DELETE ON account
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER account_no_truncate BEFORE TRUNCATE ON account
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER payout_never_deleted BEFORE DELETE ON payout
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER payout_no_truncate BEFORE TRUNCATE ON payout
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();

--changeset fencepost:paydb-003-account-guard splitStatements:false
-- INV-05 in the database: the fence never goes down, whoever writes it. The fenced statement
-- (ADR 0036) already cannot lower it; this catches any other statement that tries.
-- An account's identity, kind and currency are fixed at creation.
CREATE FUNCTION paydb_account_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.fence < OLD.fence THEN
    RAISE EXCEPTION 'paydb: fence of account % may not decrease (% -> %)', OLD.id, OLD.fence, NEW.fence;
  END IF;
  IF NEW.id <> OLD.id OR NEW.kind <> OLD.kind OR NEW.currency <> OLD.currency
     OR NEW.created_at <> OLD.created_at THEN
    RAISE EXCEPTION 'paydb: identity of account % is immutable', OLD.id;
  END IF;
  RETURN NEW;
END
$$;

--changeset fencepost:paydb-003-account-guard-trigger splitStatements:true
CREATE TRIGGER account_guard BEFORE UPDATE ON account
  FOR EACH ROW EXECUTE FUNCTION paydb_account_guard();

--changeset fencepost:paydb-003-payout-guard splitStatements:false
-- A payout's identity is immutable: what is paid, to whom, from where.
-- Its state is governed by dev.fencepost.payment.PayoutTransitions, not here.
CREATE FUNCTION paydb_payout_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id <> OLD.id OR NEW.account_id <> OLD.account_id OR NEW.amount_minor <> OLD.amount_minor
     OR NEW.currency <> OLD.currency OR NEW.beneficiary_ref <> OLD.beneficiary_ref
     OR NEW.created_at <> OLD.created_at THEN
    RAISE EXCEPTION 'paydb: identity of payout % is immutable', OLD.id;
  END IF;
  RETURN NEW;
END
$$;

--changeset fencepost:paydb-003-payout-guard-trigger splitStatements:true
CREATE TRIGGER payout_guard BEFORE UPDATE ON payout
  FOR EACH ROW EXECUTE FUNCTION paydb_payout_guard();

--changeset fencepost:paydb-003-group-balances splitStatements:false
-- INV-03, first half, held by the database at COMMIT: every ledger group has at least two legs,
-- sums to zero, and every leg agrees with its header's payout and token. Deferred, because the
-- legs of one group are inserted one statement at a time inside one transaction.
CREATE FUNCTION paydb_group_must_balance() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gid uuid;
  total numeric;
  legs bigint;
  disagreeing bigint;
BEGIN
  IF TG_TABLE_NAME = 'ledger_group' THEN
    gid := NEW.id;
  ELSE
    gid := NEW.group_id;
  END IF;
  SELECT coalesce(sum(e.signed_amount), 0),
         count(*),
         count(*) FILTER (WHERE e.payout_id IS DISTINCT FROM g.payout_id
                             OR e.fencing_token IS DISTINCT FROM g.fencing_token)
    INTO total, legs, disagreeing
    FROM ledger_group g JOIN ledger_entry e ON e.group_id = g.id
   WHERE g.id = gid;
  IF legs < 2 OR total <> 0 THEN
    RAISE EXCEPTION 'paydb: ledger group % does not balance (legs %, sum %)', gid, legs, total;
  END IF;
  IF disagreeing > 0 THEN
    RAISE EXCEPTION 'paydb: % legs of ledger group % disagree with its payout or token', disagreeing, gid;
  END IF;
  RETURN NULL;
END
$$;

--changeset fencepost:paydb-003-group-balances-triggers splitStatements:true
CREATE CONSTRAINT TRIGGER ledger_group_balances AFTER INSERT ON ledger_group
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION paydb_group_must_balance();
CREATE CONSTRAINT TRIGGER ledger_entry_group_balances AFTER INSERT ON ledger_entry
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION paydb_group_must_balance();
