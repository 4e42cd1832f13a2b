--liquibase formatted sql

--changeset fencepost:paydb-006 splitStatements:true
-- INTAKE: the role of the platform's entry point for what upstream systems hand it (customer
-- accounts, their funding, new PENDING payouts), the only writer that acts without a grant
-- (docs/decisions/0038-intake-is-the-untokened-entry-point.md). FIXTURE stays valid for rows
-- written before this change: the audit trail is append-only and is never rewritten.
ALTER TABLE audit_event DROP CONSTRAINT audit_event_actor_role_check;
ALTER TABLE audit_event ADD CONSTRAINT audit_event_actor_role_check
  CHECK (actor_role IN ('WORKER', 'RECONCILER', 'OPERATOR', 'INTAKE', 'FIXTURE'));
ALTER TABLE audit_event DROP CONSTRAINT audit_event_token_unless_fixture;
ALTER TABLE audit_event ADD CONSTRAINT audit_event_token_unless_intake
  CHECK (actor_role IN ('INTAKE', 'FIXTURE') OR fencing_token IS NOT NULL);
