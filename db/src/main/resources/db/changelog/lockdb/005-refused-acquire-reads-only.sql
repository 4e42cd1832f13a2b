--liquibase formatted sql

--changeset fencepost:lockdb-005-refused-acquire-reads-only splitStatements:false
-- lock_acquire (lockdb-004, ADR 0194) with one step more before it locks anything: a key held by
-- another live session is refused from a plain read (ADR 0209). Everything after that step is
-- lockdb-004's, unchanged. CREATE OR REPLACE keeps the function's owner and its grant.
CREATE OR REPLACE FUNCTION lock_acquire(p_key text, p_session uuid)
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

  -- Held by another live session: answered from this read, without a row lock, so a refused
  -- acquire writes nothing (ADR 0209): no transaction id, no commit record to flush. A release
  -- still in flight is not waited for; the answer is true as of this read, and a waiting caller
  -- already has its place in the queue that the release's wake goes to (ADR 0208). An expired
  -- holder, the caller's own grant and a free key all go on to the locking path below.
  SELECT (extract(epoch FROM s.expires_at - now()) * 1000)::bigint
    INTO v_expires_in
    FROM lock_entry e JOIN lock_session s ON s.id = e.session_id
   WHERE e.lock_key = p_key AND e.session_id <> p_session AND s.expires_at > now();
  IF FOUND THEN
    outcome := 'HELD';
    r_expires_in := v_expires_in;
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
