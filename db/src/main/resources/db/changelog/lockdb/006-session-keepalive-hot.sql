--liquibase formatted sql

--changeset fencepost:lockdb-006-session-keepalive-hot splitStatements:true
-- Every keepalive rewrites its session's expires_at (ADR 0211). With that column indexed, no such
-- update could be HOT: each one added an entry to both of the table's indexes, and the dead row
-- versions and index entries piled up faster than autovacuum removed them. The index served only
-- the once-a-few-seconds reaper and gauges, which read the whole table as cheaply. Without it, and
-- with room left on each page, a keepalive updates its row in place of its page (HOT) and needs
-- no index write; the page's dead versions are pruned on the next visit.
DROP INDEX lock_session_expires_at;
ALTER TABLE lock_session SET (fillfactor = 50);
