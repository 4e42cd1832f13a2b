/**
 * Durable commits for every PostgreSQL connection pool ({@link
 * dev.fencepost.db.durability.DurableCommits}, {@code fencepost.db.allow-asynchronous-commit}),
 * applied to each HikariCP pool of a Spring Boot application by {@link
 * dev.fencepost.db.durability.DurableCommitsAutoConfiguration}.
 */
package dev.fencepost.db.durability;
