--liquibase formatted sql

--changeset fencepost:proxydb-002-grant-rejections
-- Submissions refused for their signed grant (ADR 0137) are recorded with the other refusals: the code
-- the worker got, the key id the grant named (if it could be read) and a short detail. The high-water
-- of such a refusal is not read, so high_water stays NULL.
ALTER TABLE submission_rejection DROP CONSTRAINT submission_rejection_reason_check;
ALTER TABLE submission_rejection ADD CONSTRAINT submission_rejection_reason_check
    CHECK (reason IN ('FENCED', 'DUPLICATE', 'GRANT_MISSING', 'FORGED_GRANT', 'GRANT_EXPIRED', 'GRANT_MISMATCH'));
ALTER TABLE submission_rejection ADD COLUMN grant_key_id text;
ALTER TABLE submission_rejection ADD COLUMN detail text;
--rollback ALTER TABLE submission_rejection DROP COLUMN detail; ALTER TABLE submission_rejection DROP COLUMN grant_key_id; ALTER TABLE submission_rejection DROP CONSTRAINT submission_rejection_reason_check; ALTER TABLE submission_rejection ADD CONSTRAINT submission_rejection_reason_check CHECK (reason IN ('FENCED', 'DUPLICATE'));

--changeset fencepost:proxydb-002-high-water-repair-roles splitStatements:false
-- Roles are per cluster, so they may exist already (another proxydb on the same server).
-- fencepost_high_water_repair owns the repair function and is the only role the no-lowering trigger
-- lets lower a high-water; it cannot log in. fencepost_high_water_operator may call the function;
-- operators' own login roles are made members of it (docs/rail.md, "Repairing a high-water").
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'fencepost_high_water_repair') THEN
        CREATE ROLE fencepost_high_water_repair NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'fencepost_high_water_operator') THEN
        CREATE ROLE fencepost_high_water_operator NOLOGIN;
    END IF;
END;
$$;
--rollback SELECT 1;

--changeset fencepost:proxydb-002-high-water-repair splitStatements:false
-- The one way to lower a high-water that was set too high (ADR 0138): from an expected value, never
-- below the highest token of a submission the proxy accepted for the account (except submissions the
-- operator names as never legitimate, e.g. one made with a forged token before grants were signed),
-- audited in the same transaction.
CREATE TABLE high_water_repair (
    id                      bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id              text        NOT NULL,
    from_high_water         bigint      NOT NULL,
    to_high_water           bigint      NOT NULL CHECK (to_high_water > 0),
    highest_accepted_token  bigint,
    disowned_payout_ids     text[]      NOT NULL,
    operator                text        NOT NULL CHECK (length(btrim(operator)) > 0),
    reason                  text        NOT NULL CHECK (length(btrim(reason)) > 0),
    db_user                 text        NOT NULL,
    repaired_at             timestamptz NOT NULL DEFAULT clock_timestamp(),
    CHECK (to_high_water < from_high_water)
);
CREATE TRIGGER high_water_repair_update_guard BEFORE UPDATE OR DELETE ON high_water_repair
    FOR EACH ROW EXECUTE FUNCTION append_only_guard();

-- Replaces 001's guard: lowering is refused unless the statement runs as the repair function's owner.
CREATE OR REPLACE FUNCTION high_water_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.high_water < OLD.high_water AND current_user <> 'fencepost_high_water_repair' THEN
        RAISE EXCEPTION 'high-water for account % may not go backwards (% -> %); use repair_high_water()', OLD.account_id, OLD.high_water, NEW.high_water
            USING ERRCODE = 'P0001';
    END IF;
    RETURN NEW;
END;
$$;

CREATE FUNCTION repair_high_water(
    p_account_id text,
    p_expected_high_water bigint,
    p_new_high_water bigint,
    p_operator text,
    p_reason text,
    p_disowned_payout_ids text[] DEFAULT '{}')
RETURNS bigint
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
DECLARE
    v_current bigint;
    v_highest bigint;
    v_unknown text;
    v_id bigint;
BEGIN
    IF p_operator IS NULL OR length(btrim(p_operator)) = 0 OR p_reason IS NULL OR length(btrim(p_reason)) = 0 THEN
        RAISE EXCEPTION 'an operator and a reason are required' USING ERRCODE = 'P0001';
    END IF;
    SELECT high_water INTO v_current FROM account_high_water WHERE account_id = p_account_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'account % has no high-water', p_account_id USING ERRCODE = 'P0001';
    END IF;
    IF v_current <> p_expected_high_water THEN
        RAISE EXCEPTION 'high-water of account % is %, not the expected %', p_account_id, v_current, p_expected_high_water
            USING ERRCODE = 'P0001';
    END IF;
    IF p_new_high_water IS NULL OR p_new_high_water <= 0 OR p_new_high_water >= v_current THEN
        RAISE EXCEPTION 'a repair lowers the high-water of account % (now %) to a positive value', p_account_id, v_current
            USING ERRCODE = 'P0001';
    END IF;
    SELECT d INTO v_unknown FROM unnest(coalesce(p_disowned_payout_ids, '{}')) AS d
     WHERE NOT EXISTS (SELECT 1 FROM rail_submission s WHERE s.payout_id = d AND s.account_id = p_account_id)
     LIMIT 1;
    IF v_unknown IS NOT NULL THEN
        RAISE EXCEPTION 'payout % has no submission for account %', v_unknown, p_account_id USING ERRCODE = 'P0001';
    END IF;
    SELECT max(t) INTO v_highest FROM (
        SELECT fencing_token AS t FROM rail_submission
         WHERE account_id = p_account_id AND payout_id <> ALL (coalesce(p_disowned_payout_ids, '{}'))
        UNION ALL
        SELECT fencing_token FROM unguarded_submission WHERE account_id = p_account_id) accepted;
    IF v_highest IS NOT NULL AND p_new_high_water < v_highest THEN
        RAISE EXCEPTION 'account % accepted a submission under token %: the high-water may not go below it', p_account_id, v_highest
            USING ERRCODE = 'P0001';
    END IF;
    UPDATE account_high_water SET high_water = p_new_high_water, updated_at = clock_timestamp()
     WHERE account_id = p_account_id;
    INSERT INTO high_water_repair (account_id, from_high_water, to_high_water, highest_accepted_token,
                                   disowned_payout_ids, operator, reason, db_user)
    VALUES (p_account_id, v_current, p_new_high_water, v_highest, coalesce(p_disowned_payout_ids, '{}'),
            p_operator, p_reason, session_user)
    RETURNING id INTO v_id;
    RETURN v_id;
END;
$$;

GRANT SELECT, UPDATE ON account_high_water TO fencepost_high_water_repair;
GRANT SELECT ON rail_submission, unguarded_submission TO fencepost_high_water_repair;
GRANT SELECT, INSERT ON high_water_repair TO fencepost_high_water_repair;
ALTER FUNCTION repair_high_water(text, bigint, bigint, text, text, text[]) OWNER TO fencepost_high_water_repair;
REVOKE ALL ON FUNCTION repair_high_water(text, bigint, bigint, text, text, text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION repair_high_water(text, bigint, bigint, text, text, text[]) TO fencepost_high_water_operator;
GRANT SELECT ON high_water_repair TO fencepost_high_water_operator;
--rollback DROP FUNCTION repair_high_water(text, bigint, bigint, text, text, text[]); DROP TABLE high_water_repair; CREATE OR REPLACE FUNCTION high_water_guard_update() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN IF NEW.high_water < OLD.high_water THEN RAISE EXCEPTION 'high-water for account % may not go backwards (% -> %)', OLD.account_id, OLD.high_water, NEW.high_water USING ERRCODE = 'P0001'; END IF; RETURN NEW; END; $f$;
