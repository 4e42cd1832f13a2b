/**
 * The timeouts of every PostgreSQL connection pool ({@link
 * dev.fencepost.db.timeouts.DatabaseTimeouts}, {@code fencepost.db.timeouts.*}), applied to each
 * HikariCP pool of a Spring Boot application by {@link
 * dev.fencepost.db.timeouts.DatabaseTimeoutsAutoConfiguration}. Spring Boot and HikariCP are
 * optional dependencies of the db module: without them this package is never loaded.
 */
package dev.fencepost.db.timeouts;
