/**
 * The etcd lock backend (FR-09, FR-10, ADR 0011): sessions are leases, a grant is a put-if-absent
 * transaction whose revision is the fencing token. Selected with {@code
 * fencepost.lock.backend=etcd}; see {@code docs/etcd-backend.md}.
 */
package dev.fencepost.lockserver.backend.etcd;
