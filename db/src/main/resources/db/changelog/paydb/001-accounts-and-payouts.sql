--liquibase formatted sql

--changeset fencepost:paydb-001 splitStatements:true
-- The unit of locking and the carrier of the authoritative fence (A-15).
-- The id is synthetic and must fit a lock key payout:{id} ([A-Za-z0-9:._-]{1,128}).
-- balance_minor is a cached projection of ledger_entry (INV-03), kept in step in the same
-- transaction as every ledger group. It may go negative: a posting records money that already left
-- (docs/decisions/0031-no-balance-floor.md).
-- fence is the highest fencing token accepted for this account; only the one statement in
-- dev.fencepost.payment.impl.AccountFence writes it (ADR 0036), and a trigger forbids it going down.
CREATE TABLE account (
  id            text        PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9._-]{1,64}$'),
  kind          text        NOT NULL CHECK (kind IN ('CUSTOMER', 'PAYOUT_CLEARING', 'FUNDING_SOURCE')),
  currency      text        NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  balance_minor bigint      NOT NULL DEFAULT 0,
  fence         bigint      NOT NULL DEFAULT 0 CHECK (fence >= 0),
  version       bigint      NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  -- Target of payout's composite key, so a payout's currency is its account's currency.
  CONSTRAINT account_id_currency_unique UNIQUE (id, currency)
);

-- One instruction to move a fixed amount out of one account, exactly once.
-- client_reference is what the rail sees and what ambiguity resolution looks up: it is computed by
-- the database from the id, so no code path can regenerate or choose it (never a new one on retry).
-- token_stamp is diagnostic only ("who touched it last"); the guard is account.fence.
CREATE TABLE payout (
  id               uuid        PRIMARY KEY,
  account_id       text        NOT NULL,
  amount_minor     bigint      NOT NULL CHECK (amount_minor > 0 AND amount_minor <= 1000000000000000),
  currency         text        NOT NULL,
  beneficiary_ref  text        NOT NULL CHECK (beneficiary_ref ~ '^[A-Za-z0-9:._-]{1,128}$'),
  state            text        NOT NULL DEFAULT 'PENDING' CHECK (state IN (
                     'PENDING', 'CLAIMED', 'RAIL_SUBMITTED', 'RAIL_ACKED', 'RAIL_AMBIGUOUS',
                     'POSTED', 'FAILED', 'ABANDONED')),
  client_reference text        NOT NULL GENERATED ALWAYS AS ('fp-' || replace(id::text, '-', '')) STORED,
  claimed_by       text,
  token_stamp      bigint      CHECK (token_stamp > 0),
  failure_reason   text,
  rail_reference   text,
  version          bigint      NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  claimed_at       timestamptz,
  submitted_at     timestamptz,
  settled_at       timestamptz,
  finished_at      timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT payout_client_reference_unique UNIQUE (client_reference),
  CONSTRAINT payout_account_currency_fk FOREIGN KEY (account_id, currency)
    REFERENCES account (id, currency),
  -- A terminal payout carries the time it finished, and only a terminal payout does.
  CONSTRAINT payout_finished_iff_terminal CHECK (
    (state IN ('POSTED', 'FAILED', 'ABANDONED')) = (finished_at IS NOT NULL))
);
-- Candidate selection (oldest pending per account) and recovery scans (in-flight, ambiguous).
CREATE INDEX payout_account_state ON payout (account_id, state);
CREATE INDEX payout_state_updated ON payout (state, updated_at);
