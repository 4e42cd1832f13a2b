--liquibase formatted sql

-- The runtime role (ADR 0160): the lock server connects as ${runtime_role}, which owns nothing and
-- holds only the grants below, so it cannot alter a table, disable a trigger, or rewrite the
-- grant history and the operator audit. Tested in launcher: RuntimeRolePrivilegesTest.

--changeset fencepost:lockdb-003-no-truncate splitStatements:true
-- TRUNCATE fires no row trigger: without these, the append-only triggers of lockdb-003 could be
-- bypassed by anyone allowed to truncate (the owner; the runtime role has no TRUNCATE grant).
CREATE TRIGGER lock_audit_no_truncate BEFORE TRUNCATE ON lock_audit
  FOR EACH STATEMENT EXECUTE FUNCTION fencepost_forbid_change();
CREATE TRIGGER lock_event_no_truncate BEFORE TRUNCATE ON lock_event
  FOR EACH STATEMENT EXECUTE FUNCTION fencepost_forbid_change();

--changeset fencepost:lockdb-003-token-floor-function splitStatements:false
-- The restore procedure's token floor (ADR 0003) without UPDATE on the sequence: setval would let
-- its holder move the sequence backwards and reissue tokens (INV-04). This function only raises
-- it; it runs as its owner, the migration owner.
CREATE FUNCTION lock_token_floor(p_floor bigint) RETURNS bigint
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
BEGIN
  IF p_floor IS NULL OR p_floor <= 0 THEN
    RAISE EXCEPTION 'a token floor is a positive integer, got %', p_floor USING ERRCODE = 'P0001';
  END IF;
  RETURN setval('public.lock_token_seq', GREATEST((SELECT last_value FROM public.lock_token_seq), p_floor));
END
$$;
REVOKE ALL ON FUNCTION lock_token_floor(bigint) FROM PUBLIC;

--changeset fencepost:lockdb-003-runtime-grants runOnChange:true splitStatements:true
-- Exactly the statements of lock-server-app's PostgreSQL backend (PostgresLockBackend,
-- KeepAliveBatcher, SessionGrace, TokenFloor). Re-applied when the role's name changes.
GRANT SELECT, INSERT, UPDATE, DELETE ON lock_session, lock_entry TO ${runtime_role};
GRANT SELECT, INSERT, DELETE ON lock_waiter TO ${runtime_role};
GRANT SELECT, INSERT, UPDATE ON lock_server_beacon TO ${runtime_role};
GRANT SELECT, INSERT ON lock_event, lock_audit TO ${runtime_role};
GRANT USAGE ON SEQUENCE lock_event_id_seq, lock_audit_id_seq TO ${runtime_role};
GRANT USAGE, SELECT ON SEQUENCE lock_token_seq TO ${runtime_role};
GRANT EXECUTE ON FUNCTION lock_token_floor(bigint) TO ${runtime_role};
