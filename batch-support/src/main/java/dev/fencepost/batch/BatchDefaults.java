package dev.fencepost.batch;

import java.util.Map;

/**
 * The batchdb defaults a job application gives {@code SpringApplication#setDefaultProperties} (the
 * lowest precedence, so any configuration wins): Liquibase applies the changelog that owns the
 * Spring Batch 6 schema, and Boot's own schema script stays off, so a Batch upgrade cannot change
 * batchdb without a reviewed changeset. Job instances are created at READ_COMMITTED instead of
 * Batch's SERIALIZABLE: several pods launch at once (A-05, UC-02), each launch is unique by its
 * {@link LaunchParameters#LAUNCH_ID}, and SERIALIZABLE made concurrent launches fail with
 * serialization errors on PostgreSQL.
 *
 * <p>Deliberately not an {@code EnvironmentPostProcessor}: that would reach every Spring
 * application in a JVM that has batch-support on its class path (tests and the local platform run
 * the lock server and the rail proxy in-process), and point their Liquibase at batchdb's changelog.
 *
 * <pre>{@code
 * new SpringApplicationBuilder(MyJobApplication.class).properties(BatchDefaults.properties()).run(args);
 * }</pre>
 */
public final class BatchDefaults {

  /** The changelog that owns the job repository schema (module {@code db}). */
  public static final String BATCHDB_CHANGELOG =
      "classpath:db/changelog/batchdb/db.changelog-master.yaml";

  private BatchDefaults() {}

  /** The defaults, as property name to value. */
  public static Map<String, Object> properties() {
    return Map.of(
        "spring.batch.jdbc.initialize-schema",
        "never",
        "spring.liquibase.change-log",
        BATCHDB_CHANGELOG,
        "spring.batch.jdbc.isolation-level-for-create",
        "read_committed");
  }
}
