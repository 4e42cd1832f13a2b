--liquibase formatted sql

-- The runtime role (ADR 0160): the rail proxy connects as ${runtime_role}, which owns nothing and
-- holds only the grants below. It may record a submission's outcome once (the columns of the
-- outcome, on an unresolved row: proxydb-001's trigger) and advance a high-water (never lower it:
-- the same trigger; only fencepost_high_water_repair may, ADR 0138), and nothing else on the
-- evidence. Tested in launcher: RuntimeRolePrivilegesTest.

--changeset fencepost:proxydb-003-no-truncate splitStatements:true
-- TRUNCATE fires no row trigger: without these the append-only triggers could be bypassed by
-- anyone allowed to truncate (the owner; the runtime role has no TRUNCATE grant).
CREATE TRIGGER rail_submission_no_truncate BEFORE TRUNCATE ON rail_submission
    FOR EACH STATEMENT EXECUTE FUNCTION append_only_guard();
CREATE TRIGGER unguarded_submission_no_truncate BEFORE TRUNCATE ON unguarded_submission
    FOR EACH STATEMENT EXECUTE FUNCTION append_only_guard();
CREATE TRIGGER submission_rejection_no_truncate BEFORE TRUNCATE ON submission_rejection
    FOR EACH STATEMENT EXECUTE FUNCTION append_only_guard();
CREATE TRIGGER account_high_water_no_truncate BEFORE TRUNCATE ON account_high_water
    FOR EACH STATEMENT EXECUTE FUNCTION append_only_guard();
CREATE TRIGGER high_water_repair_no_truncate BEFORE TRUNCATE ON high_water_repair
    FOR EACH STATEMENT EXECUTE FUNCTION append_only_guard();
--rollback DROP TRIGGER high_water_repair_no_truncate ON high_water_repair; DROP TRIGGER account_high_water_no_truncate ON account_high_water; DROP TRIGGER submission_rejection_no_truncate ON submission_rejection; DROP TRIGGER unguarded_submission_no_truncate ON unguarded_submission; DROP TRIGGER rail_submission_no_truncate ON rail_submission;

--changeset fencepost:proxydb-003-runtime-grants runOnChange:true splitStatements:true
-- Exactly the statements of rail-proxy-app's SubmissionStore. unguarded_submission is written only
-- with the uniqueness guard switched off for an experiment (ADR 0043).
GRANT SELECT, INSERT ON account_high_water TO ${runtime_role};
GRANT UPDATE (high_water, updated_at) ON account_high_water TO ${runtime_role};
GRANT SELECT, INSERT ON rail_submission, unguarded_submission TO ${runtime_role};
GRANT UPDATE (outcome, rail_reference, decline_code, resolved_at) ON rail_submission, unguarded_submission TO ${runtime_role};
GRANT INSERT ON submission_rejection TO ${runtime_role};
--rollback SELECT 1;
