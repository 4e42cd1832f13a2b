/**
 * What the db module's auto-configurations share: finding every PostgreSQL HikariCP pool of an
 * application ({@link dev.fencepost.db.pool.PostgresPools}).
 */
package dev.fencepost.db.pool;
