--liquibase formatted sql

--changeset fencepost:proxydb-001-account-high-water
-- The proxy's own copy of the highest fencing token seen per account (ADR 0046, FR-17, INV-05). It is
-- advanced by one conditional upsert in the transaction that records a submission intent.
CREATE TABLE account_high_water (
    account_id  text        PRIMARY KEY,
    high_water  bigint      NOT NULL CHECK (high_water > 0),
    updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
--rollback DROP TABLE account_high_water;

--changeset fencepost:proxydb-001-rail-submission
-- One row per payout ever forwarded: intent first (outcome NULL, FR-19), then exactly one outcome
-- (FR-20, ADR 0042). The UNIQUE constraint on payout_id is the mechanical "at most one submission ever"
-- (FR-18, INV-02); the application never relies on a prior SELECT for it.
CREATE TABLE rail_submission (
    id                bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payout_id         text        NOT NULL,
    account_id        text        NOT NULL,
    fencing_token     bigint      NOT NULL CHECK (fencing_token > 0),
    client_reference  text        NOT NULL,
    amount_minor      bigint      NOT NULL CHECK (amount_minor > 0),
    currency          char(3)     NOT NULL,
    beneficiary_ref   text        NOT NULL,
    outcome           text        CHECK (outcome IN ('ACKED', 'REJECTED', 'TIMEOUT')),
    rail_reference    text,
    decline_code      text,
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    resolved_at       timestamptz,
    CONSTRAINT rail_submission_payout_id_key UNIQUE (payout_id),
    CONSTRAINT rail_submission_resolved_with_outcome CHECK ((outcome IS NULL) = (resolved_at IS NULL))
);
CREATE INDEX rail_submission_created_at_idx ON rail_submission (created_at, id);
--rollback DROP TABLE rail_submission;

--changeset fencepost:proxydb-001-submission-rejection
-- Append-only record of every refused attempt (ADR 0047): FENCED (stale token) and DUPLICATE (the payout
-- already has a submission). A stale attempt never occupies the payout's unique row.
CREATE TABLE submission_rejection (
    id                      bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    reason                  text        NOT NULL CHECK (reason IN ('FENCED', 'DUPLICATE')),
    payout_id               text        NOT NULL,
    account_id              text        NOT NULL,
    presented_token         bigint      NOT NULL,
    high_water              bigint,
    client_reference        text        NOT NULL,
    existing_submission_id  bigint      REFERENCES rail_submission (id),
    created_at              timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX submission_rejection_payout_idx ON submission_rejection (payout_id);
--rollback DROP TABLE submission_rejection;

--changeset fencepost:proxydb-001-unguarded-submission
-- Negative control only (ADR 0043, FR-29): with the uniqueness guard switched off for an experiment, a
-- second submission for a payout is recorded here, with no UNIQUE constraint, and forwarded. Normal
-- operation never writes this table, so the UNIQUE constraint above is never relaxed.
CREATE TABLE unguarded_submission (
    id                bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payout_id         text        NOT NULL,
    account_id        text        NOT NULL,
    fencing_token     bigint      NOT NULL CHECK (fencing_token > 0),
    client_reference  text        NOT NULL,
    amount_minor      bigint      NOT NULL CHECK (amount_minor > 0),
    currency          char(3)     NOT NULL,
    beneficiary_ref   text        NOT NULL,
    outcome           text        CHECK (outcome IN ('ACKED', 'REJECTED', 'TIMEOUT')),
    rail_reference    text,
    decline_code      text,
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    resolved_at       timestamptz,
    CONSTRAINT unguarded_submission_resolved_with_outcome CHECK ((outcome IS NULL) = (resolved_at IS NULL))
);
--rollback DROP TABLE unguarded_submission;

--changeset fencepost:proxydb-001-immutability splitStatements:false
-- Submissions are written once as intent, resolved once, then frozen (FR-20, ADR 0042); rejections and
-- submissions are never deleted (finance evidence); the high-water never goes backwards (INV-05).
-- The application already writes this way; these triggers make any other writer fail loudly.
CREATE FUNCTION submission_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.outcome IS NOT NULL THEN
        RAISE EXCEPTION 'submission % for payout % is resolved (%) and immutable', OLD.id, OLD.payout_id, OLD.outcome
            USING ERRCODE = 'P0001';
    END IF;
    IF NEW.payout_id IS DISTINCT FROM OLD.payout_id
        OR NEW.account_id IS DISTINCT FROM OLD.account_id
        OR NEW.fencing_token IS DISTINCT FROM OLD.fencing_token
        OR NEW.client_reference IS DISTINCT FROM OLD.client_reference
        OR NEW.amount_minor IS DISTINCT FROM OLD.amount_minor
        OR NEW.currency IS DISTINCT FROM OLD.currency
        OR NEW.beneficiary_ref IS DISTINCT FROM OLD.beneficiary_ref
        OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
        RAISE EXCEPTION 'submission % for payout %: only the outcome may be recorded', OLD.id, OLD.payout_id
            USING ERRCODE = 'P0001';
    END IF;
    RETURN NEW;
END;
$$;

CREATE FUNCTION append_only_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on % is forbidden: the table is append-only evidence', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'P0001';
END;
$$;

CREATE FUNCTION high_water_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.high_water < OLD.high_water THEN
        RAISE EXCEPTION 'high-water for account % may not go backwards (% -> %)', OLD.account_id, OLD.high_water, NEW.high_water
            USING ERRCODE = 'P0001';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER rail_submission_update_guard BEFORE UPDATE ON rail_submission
    FOR EACH ROW EXECUTE FUNCTION submission_guard_update();
CREATE TRIGGER rail_submission_delete_guard BEFORE DELETE ON rail_submission
    FOR EACH ROW EXECUTE FUNCTION append_only_guard();
CREATE TRIGGER unguarded_submission_update_guard BEFORE UPDATE ON unguarded_submission
    FOR EACH ROW EXECUTE FUNCTION submission_guard_update();
CREATE TRIGGER submission_rejection_update_guard BEFORE UPDATE OR DELETE ON submission_rejection
    FOR EACH ROW EXECUTE FUNCTION append_only_guard();
CREATE TRIGGER account_high_water_update_guard BEFORE UPDATE ON account_high_water
    FOR EACH ROW EXECUTE FUNCTION high_water_guard_update();
CREATE TRIGGER account_high_water_delete_guard BEFORE DELETE ON account_high_water
    FOR EACH ROW EXECUTE FUNCTION append_only_guard();
--rollback DROP TRIGGER account_high_water_delete_guard ON account_high_water; DROP TRIGGER account_high_water_update_guard ON account_high_water; DROP TRIGGER submission_rejection_update_guard ON submission_rejection; DROP TRIGGER unguarded_submission_update_guard ON unguarded_submission; DROP TRIGGER rail_submission_delete_guard ON rail_submission; DROP TRIGGER rail_submission_update_guard ON rail_submission; DROP FUNCTION high_water_guard_update(); DROP FUNCTION append_only_guard(); DROP FUNCTION submission_guard_update();
