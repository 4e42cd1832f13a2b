--liquibase formatted sql

--changeset fencepost:paydb-002 splitStatements:true
-- One money movement (a "transaction group"). The header exists so that "at most one posting
-- group per payout" is a plain unique index rather than a convention. Append-only (003).
CREATE TABLE ledger_group (
  id            uuid        PRIMARY KEY,
  kind          text        NOT NULL CHECK (kind IN ('FUNDING', 'PAYOUT_POSTING')),
  payout_id     uuid        REFERENCES payout (id),
  fencing_token bigint      CHECK (fencing_token > 0),
  actor         text        NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
  created_at    timestamptz NOT NULL DEFAULT now(),
  -- A payout posting names its payout and the token it was posted under (FR-30); funding
  -- (ADR 0033, fixture loading) has neither.
  CONSTRAINT ledger_group_posting_shape CHECK (
    (kind = 'PAYOUT_POSTING') = (payout_id IS NOT NULL)
    AND (kind = 'PAYOUT_POSTING') = (fencing_token IS NOT NULL))
);
CREATE UNIQUE INDEX ledger_group_one_posting_per_payout
  ON ledger_group (payout_id) WHERE kind = 'PAYOUT_POSTING';

-- The immutable double-entry record, the only source of truth about money (INV-03). The sign
-- carries direction. payout_id and fencing_token repeat the header's, so a reader of one leg needs
-- no join; the balancing trigger (003) refuses a leg that disagrees with its header.
CREATE TABLE ledger_entry (
  id                      bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  group_id                uuid        NOT NULL REFERENCES ledger_group (id),
  account_id              text        NOT NULL REFERENCES account (id),
  counterparty_account_id text        NOT NULL REFERENCES account (id),
  signed_amount           bigint      NOT NULL CHECK (
                            signed_amount <> 0
                            AND signed_amount BETWEEN -1000000000000000 AND 1000000000000000),
  payout_id               uuid        REFERENCES payout (id),
  fencing_token           bigint      CHECK (fencing_token > 0),
  created_at              timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ledger_entry_two_sided CHECK (account_id <> counterparty_account_id)
);
CREATE INDEX ledger_entry_group ON ledger_entry (group_id);
CREATE INDEX ledger_entry_account ON ledger_entry (account_id);
CREATE INDEX ledger_entry_payout ON ledger_entry (payout_id);

-- Who did what under which token (FR-30): every accepted transition, and the fixture actions that
-- stand in for upstream systems (account creation, funding, payout creation). Append-only (003).
-- Rejected attempts roll back and are not here; they are log events and counters.
CREATE TABLE audit_event (
  id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  occurred_at   timestamptz NOT NULL DEFAULT now(),
  actor_role    text        NOT NULL CHECK (actor_role IN ('WORKER', 'RECONCILER', 'OPERATOR', 'FIXTURE')),
  actor_id      text        NOT NULL CHECK (length(actor_id) BETWEEN 1 AND 128),
  fencing_token bigint      CHECK (fencing_token > 0),
  account_id    text        NOT NULL REFERENCES account (id),
  payout_id     uuid        REFERENCES payout (id),
  action        text        NOT NULL CHECK (action ~ '^[A-Z_]{1,64}$'),
  from_state    text,
  to_state      text,
  reason        text,
  -- Only fixture loading acts without a grant (INV-07, ADR 0037).
  CONSTRAINT audit_event_token_unless_fixture CHECK (
    actor_role = 'FIXTURE' OR fencing_token IS NOT NULL)
);
CREATE INDEX audit_event_payout ON audit_event (payout_id);
CREATE INDEX audit_event_account ON audit_event (account_id, id);
