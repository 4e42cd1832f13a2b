--liquibase formatted sql

--changeset fencepost:batchdb-002-runtime-grants runOnChange:true splitStatements:true
-- The runtime role (ADR 0160): the jobs connect to their job repository as ${runtime_role}, which
-- owns nothing. Spring Batch's JDBC DAOs insert and update executions and contexts and draw ids
-- from the three sequences; a normal run deletes nothing.
GRANT SELECT, INSERT, UPDATE ON BATCH_JOB_INSTANCE, BATCH_JOB_EXECUTION, BATCH_JOB_EXECUTION_PARAMS, BATCH_STEP_EXECUTION, BATCH_STEP_EXECUTION_CONTEXT, BATCH_JOB_EXECUTION_CONTEXT TO ${runtime_role};
GRANT USAGE ON SEQUENCE BATCH_STEP_EXECUTION_SEQ, BATCH_JOB_EXECUTION_SEQ, BATCH_JOB_INSTANCE_SEQ TO ${runtime_role};
