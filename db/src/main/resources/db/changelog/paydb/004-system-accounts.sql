--liquibase formatted sql

--changeset fencepost:paydb-004 splitStatements:true
-- The two system accounts. payout-clearing receives the credit leg of every payout posting (the
-- rail's side of the movement); funding-source is the counterparty of every funding group (ADR 0033), so
-- the sum over all ledger entries is always zero. Neither is a lock key: their rows are written
-- only inside a transaction already fenced on a customer account, or by fixture loading.
INSERT INTO account (id, kind, currency) VALUES ('payout-clearing', 'PAYOUT_CLEARING', '${paydb.currency}');
INSERT INTO account (id, kind, currency) VALUES ('funding-source', 'FUNDING_SOURCE', '${paydb.currency}');
