/**
 * TLS for every PostgreSQL connection pool ({@link dev.fencepost.db.tls.DatabaseTls}, {@code
 * fencepost.db.tls.*}), applied to each HikariCP pool of a Spring Boot application by {@link
 * dev.fencepost.db.tls.DatabaseTlsAutoConfiguration}: pgjdbc's own {@code sslmode}, {@code
 * sslrootcert}, {@code sslcert} and {@code sslkey}, with its default SSL factory (decision record
 * 0157).
 */
package dev.fencepost.db.tls;
