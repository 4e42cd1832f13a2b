--liquibase formatted sql

--changeset fencepost:paydb-011-balance-slots splitStatements:true
-- The cached balance of each system account, spread over 16 slot rows (ADR 0193). Every payout
-- posting credited payout-clearing's one row and every funding debited funding-source's, so each
-- such transaction held that row's lock until it committed: with 32 payout threads the clearing
-- UPDATE waited about 37 ms per payout and serialised the platform. A posting now adds the system
-- account's side to one slot, chosen from its payout id (a funding's from its account id) by
-- dev.fencepost.payment.impl.BalanceSlots, whose COUNT is the bound of the CHECK below.
-- A system account's balance is account.balance_minor, the base it had when this changeset ran (so
-- an existing database keeps its totals), plus the sum of its slots, and that whole balance is what
-- INV-03 equates with its entries. Customer accounts have no slots: their row is already serialised
-- per account by the fence.
CREATE TABLE account_balance_slot (
  account_id    text     NOT NULL REFERENCES account (id),
  slot          smallint NOT NULL CHECK (slot >= 0 AND slot < 16),
  balance_minor bigint   NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, slot)
);
INSERT INTO account_balance_slot (account_id, slot)
  SELECT a.id, s.slot FROM account a CROSS JOIN generate_series(0, 15) AS s (slot)
   WHERE a.kind IN ('PAYOUT_CLEARING', 'FUNDING_SOURCE');

-- Every account with its whole balance, base plus slots, in numeric (a sum of corrupted slots is
-- reported, never overflowed). payment-resource reads balances only here, so no reader of a
-- balance can forget the slots; the runbooks read it too.
CREATE VIEW account_balance AS
  SELECT a.id AS account_id,
         a.balance_minor AS base_minor,
         coalesce(s.slots_minor, 0) AS slots_minor,
         a.balance_minor + coalesce(s.slots_minor, 0) AS balance_minor
    FROM account a
    LEFT JOIN (SELECT account_id, sum(balance_minor) AS slots_minor
                 FROM account_balance_slot GROUP BY account_id) s ON s.account_id = a.id;

--changeset fencepost:paydb-011-balance-slot-guard splitStatements:false
-- A slot belongs to its account for good: deleting one would make its part of the balance vanish,
-- and moving one would move money between accounts without a ledger group. Only its balance moves.
CREATE FUNCTION paydb_balance_slot_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.account_id <> OLD.account_id OR NEW.slot <> OLD.slot THEN
    RAISE EXCEPTION 'paydb: balance slot % of account % is immutable but for its balance', OLD.slot, OLD.account_id;
  END IF;
  RETURN NEW;
END
$$;

--changeset fencepost:paydb-011-balance-slot-guard-triggers splitStatements:true
CREATE TRIGGER account_balance_slot_guard BEFORE UPDATE ON account_balance_slot
  FOR EACH ROW EXECUTE FUNCTION paydb_balance_slot_guard();
CREATE TRIGGER account_balance_slot_never_deleted BEFORE DELETE ON account_balance_slot
  FOR EACH ROW EXECUTE FUNCTION paydb_refuse_change();
CREATE TRIGGER account_balance_slot_no_truncate BEFORE TRUNCATE ON account_balance_slot
  FOR EACH STATEMENT EXECUTE FUNCTION paydb_refuse_change();

--changeset fencepost:paydb-011-balance-slot-grants runOnChange:true splitStatements:true
-- Ledger adds to a slot's balance; nothing the runtime role runs adds or removes a slot.
GRANT SELECT ON account_balance_slot, account_balance TO ${runtime_role};
GRANT UPDATE (balance_minor) ON account_balance_slot TO ${runtime_role};
