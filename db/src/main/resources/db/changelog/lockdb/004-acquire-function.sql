--liquibase formatted sql

--changeset fencepost:lockdb-004-acquire-function splitStatements:false
-- One acquire attempt of lock-server-app's PostgreSQL backend in one statement (ADR 0194): the
-- steps it used to send one round trip each, in the same order, inside the statement's own
-- transaction. The caller runs it in autocommit mode and reads its row only once the driver has
-- seen the commit, so a token still leaves the server only after COMMIT (INV-04, ADR 0001).
-- SECURITY INVOKER (the default): it runs with the runtime role's own table grants.
--
-- outcome: GRANTED (a new grant, or the caller's own grant again: same token, ADR 0001), HELD (by
-- another live session; expires_in is how long until that session expires) or NO_SESSION (the
-- caller's session is unknown or expired).
CREATE FUNCTION lock_acquire(p_key text, p_session uuid)
RETURNS TABLE (
  outcome      text,
  r_session_id uuid,
  r_owner      text,
  r_token      bigint,
  r_acquired   timestamptz,
  r_expires    timestamptz,
  r_expires_in bigint
)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, public
AS $$
DECLARE
  v_holder     uuid;
  v_owner      text;
  v_token      bigint;
  v_acquired   timestamptz;
  v_expires    timestamptz;
  v_expires_in bigint;
  v_expired    text[];
BEGIN
  -- The caller's session, read without a row lock: several acquires of one session must not queue
  -- on its row, nor make its keepalives queue behind them. This only answers an unknown or expired
  -- session early, as before; the claim below proves the session alive again.
  PERFORM 1 FROM lock_session s WHERE s.id = p_session AND s.expires_at > now();
  IF NOT FOUND THEN
    outcome := 'NO_SESSION';
    RETURN NEXT;
    RETURN;
  END IF;

  -- The key's row, locked: a concurrent acquire of the key waits here until this one commits.
  SELECT e.session_id, e.owner, e.token, e.acquired_at, s.expires_at,
         (extract(epoch FROM s.expires_at - now()) * 1000)::bigint
    INTO v_holder, v_owner, v_token, v_acquired, v_expires, v_expires_in
    FROM lock_entry e JOIN lock_session s ON s.id = e.session_id
   WHERE e.lock_key = p_key
     FOR UPDATE OF e;
  IF FOUND THEN
    IF v_holder = p_session THEN
      -- Idempotent re-acquire: a retried request must not mint a token.
      outcome := 'GRANTED';
      r_session_id := v_holder;
      r_owner := v_owner;
      r_token := v_token;
      r_acquired := v_acquired;
      r_expires := v_expires;
      r_expires_in := v_expires_in;
      RETURN NEXT;
      RETURN;
    END IF;
    -- Takeover (ADR 0004): the expired holder's session goes, and with it (ON DELETE CASCADE) every
    -- key it held; each of those grants gets its EXPIRED event. Its row is locked first, in a
    -- statement of its own: this and a keepalive of that session lock the same row, so exactly one
    -- of them wins; and an acquire of that session still in flight (its claim holds the row's key
    -- share) is waited for here, so the next statement, with a snapshot taken after the wait, sees
    -- the key it claimed among the ones the cascade deletes. In one statement, that key went
    -- without its EXPIRED event (ADR 0194).
    PERFORM 1 FROM lock_session WHERE id = v_holder AND expires_at <= now() FOR UPDATE;
    IF NOT FOUND THEN
      outcome := 'HELD';
      r_expires_in := v_expires_in;
      RETURN NEXT;
      RETURN;
    END IF;
    WITH dead AS (
      DELETE FROM lock_session WHERE id = v_holder AND expires_at <= now()
      RETURNING id
    ), events AS (
      INSERT INTO lock_event (lock_key, token, session_id, kind)
      SELECT e.lock_key, e.token, e.session_id, 'EXPIRED'
        FROM lock_entry e JOIN dead d ON d.id = e.session_id
      RETURNING lock_key
    )
    SELECT array_agg(lock_key) INTO v_expired FROM events;
    -- Waiters of the other keys the dead session held (this key's waiters lose to this acquire).
    PERFORM pg_notify('fencepost_lock_freed', k) FROM unnest(v_expired) AS k WHERE k <> p_key;
  END IF;

  -- Claim the key with a placeholder token, the caller's session proved alive by the same
  -- statement. FOR KEY SHARE is the lock the foreign key takes anyway: it does not conflict with a
  -- keepalive's UPDATE of the session, but it does with a takeover's or a close's DELETE of it, so
  -- either that DELETE waits for this transaction, or this SELECT waits for it and, the row gone,
  -- claims nothing.
  INSERT INTO lock_entry (lock_key, session_id, owner, token, acquired_at)
  SELECT p_key, s.id, s.owner, 0, now()
    FROM lock_session s
   WHERE s.id = p_session AND s.expires_at > now()
     FOR KEY SHARE
  ON CONFLICT (lock_key) DO NOTHING;
  IF NOT FOUND THEN
    PERFORM 1 FROM lock_session s WHERE s.id = p_session AND s.expires_at > now();
    IF NOT FOUND THEN
      -- Closed or taken over since it was read above.
      outcome := 'NO_SESSION';
    ELSE
      -- Another session inserted the key after it was read above; it is held.
      outcome := 'HELD';
      SELECT (extract(epoch FROM s.expires_at - now()) * 1000)::bigint
        INTO r_expires_in
        FROM lock_entry e JOIN lock_session s ON s.id = e.session_id
       WHERE e.lock_key = p_key;
    END IF;
    RETURN NEXT;
    RETURN;
  END IF;

  -- Only now, the key's row ours, the token. Drawing it in the INSERT above would be wrong: a
  -- conflicting INSERT evaluates nextval before it waits for the other transaction, and may then
  -- succeed after later grants, with a token lower than theirs (ADR 0001).
  UPDATE lock_entry e SET token = nextval('lock_token_seq')
    FROM lock_session s
   WHERE e.lock_key = p_key AND s.id = e.session_id
  RETURNING e.session_id, e.owner, e.token, e.acquired_at, s.expires_at,
            (extract(epoch FROM s.expires_at - now()) * 1000)::bigint
       INTO r_session_id, r_owner, r_token, r_acquired, r_expires, r_expires_in;
  INSERT INTO lock_event (lock_key, token, session_id, kind)
  VALUES (p_key, r_token, r_session_id, 'ACQUIRED');
  outcome := 'GRANTED';
  RETURN NEXT;
END
$$;
REVOKE ALL ON FUNCTION lock_acquire(text, uuid) FROM PUBLIC;

--changeset fencepost:lockdb-004-acquire-function-grant runOnChange:true
-- Re-applied when the role's name changes, like lockdb-003-runtime-grants.
GRANT EXECUTE ON FUNCTION lock_acquire(text, uuid) TO ${runtime_role};
