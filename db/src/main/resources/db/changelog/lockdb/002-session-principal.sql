--liquibase formatted sql

--changeset fencepost:lockdb-002
-- The authenticated principal that created the session (docs/security.md, ADR 0133): only it may
-- keep the session alive, close it, or acquire, renew and release through it. Null for sessions
-- created before identities existed; those stay usable by any lock holder until they end.
ALTER TABLE lock_session
  ADD COLUMN principal text CHECK (principal IS NULL OR length(principal) BETWEEN 1 AND 200);
