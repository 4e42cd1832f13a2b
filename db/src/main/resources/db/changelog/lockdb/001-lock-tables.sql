--liquibase formatted sql

--changeset fencepost:lockdb-001 splitStatements:true
-- The token source (ADR 0001, INV-04). One sequence for every key: strictly increasing per key because it
-- is strictly increasing overall. NO CYCLE: wrapping around would reissue tokens. Never reset it;
-- a restore must move it past every token issued before (ADR 0003).
CREATE SEQUENCE lock_token_seq AS bigint START WITH 1 INCREMENT BY 1 NO CYCLE;

-- One client's liveness relationship (FR-04). A session is alive while expires_at > now() by the
-- database clock (ADR 0004); its locks die with it.
CREATE TABLE lock_session (
  id                uuid PRIMARY KEY,
  owner             text        NOT NULL CHECK (length(owner) BETWEEN 1 AND 200),
  ttl_millis        bigint      NOT NULL CHECK (ttl_millis > 0),
  created_at        timestamptz NOT NULL DEFAULT now(),
  last_heartbeat_at timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL
);
CREATE INDEX lock_session_expires_at ON lock_session (expires_at);

-- One held lock. A row is valid only while its session is alive; taking over an expired holder
-- deletes that holder's session first, in the acquiring transaction.
CREATE TABLE lock_entry (
  lock_key    text        PRIMARY KEY CHECK (lock_key ~ '^[A-Za-z0-9:._-]{1,128}$'),
  session_id  uuid        NOT NULL REFERENCES lock_session (id) ON DELETE CASCADE,
  owner       text        NOT NULL,
  -- 0 only inside the acquiring transaction, between claiming the row and drawing the token.
  token       bigint      NOT NULL CHECK (token >= 0),
  acquired_at timestamptz NOT NULL
);
CREATE INDEX lock_entry_session ON lock_entry (session_id);

-- Acquire calls currently waiting for a key: introspection only (FR-07), never a correctness input.
CREATE TABLE lock_waiter (
  id         uuid        PRIMARY KEY,
  lock_key   text        NOT NULL,
  session_id uuid        NOT NULL REFERENCES lock_session (id) ON DELETE CASCADE,
  since      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lock_waiter_key ON lock_waiter (lock_key);

-- Append-only history of grants, written in the grant's own transaction: the input of the
-- history checker and of postmortems.
CREATE TABLE lock_event (
  id         bigserial   PRIMARY KEY,
  lock_key   text        NOT NULL,
  token      bigint      NOT NULL,
  session_id uuid        NOT NULL,
  kind       text        NOT NULL CHECK (kind IN ('ACQUIRED', 'RELEASED', 'REVOKED', 'SESSION_CLOSED', 'EXPIRED')),
  at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lock_event_key ON lock_event (lock_key, id);

-- Operator break-glass audit (FR-08, FR-30). Append-only.
CREATE TABLE lock_audit (
  id            bigserial   PRIMARY KEY,
  action        text        NOT NULL CHECK (action IN ('REVOKE')),
  lock_key      text        NOT NULL,
  operator      text        NOT NULL CHECK (length(operator) BETWEEN 1 AND 200),
  reason        text        NOT NULL CHECK (length(reason) BETWEEN 1 AND 2000),
  revoked_token bigint,
  revoked_owner text,
  at            timestamptz NOT NULL DEFAULT now()
);

-- Each lock-server instance stamps last_seen every second while it can reach lockdb. After an
-- outage or a restart, sessions alive at the service's last sign of life get one TTL of grace
-- (the grace after an outage, ADR 0002).
CREATE TABLE lock_server_beacon (
  instance_id text        PRIMARY KEY,
  last_seen   timestamptz NOT NULL
);

--changeset fencepost:lockdb-002 splitStatements:false
CREATE FUNCTION fencepost_forbid_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END $$;

--changeset fencepost:lockdb-003 splitStatements:true
CREATE TRIGGER lock_audit_append_only BEFORE UPDATE OR DELETE ON lock_audit
  FOR EACH ROW EXECUTE FUNCTION fencepost_forbid_change();
CREATE TRIGGER lock_event_append_only BEFORE UPDATE OR DELETE ON lock_event
  FOR EACH ROW EXECUTE FUNCTION fencepost_forbid_change();
