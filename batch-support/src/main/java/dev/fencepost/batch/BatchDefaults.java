package dev.fencepost.batch;

/**
 * batch-support's own configuration file, {@code batch-defaults.yaml}, which a job application
 * reads before its own: a job sets {@code spring.config.name} to {@link #configNames(String)
 * batch-defaults,<its name>}, and Boot lets a later name's file win over an earlier one's, so the
 * job's file can override any of these defaults and command-line arguments still override both.
 *
 * <p>What the file sets: Liquibase applies the changelog that owns the Spring Batch 6 schema
 * ({@value #BATCHDB_CHANGELOG}) and Boot's own schema script stays off, so a Batch upgrade cannot
 * change batchdb without a reviewed changeset. Job instances are created at READ_COMMITTED instead
 * of Batch's SERIALIZABLE: several pods launch at once (A-05, UC-02), each launch is unique by its
 * {@link LaunchParameters#LAUNCH_ID}, and SERIALIZABLE made concurrent launches fail with
 * serialization errors on PostgreSQL.
 *
 * <p>A config file rather than an {@code EnvironmentPostProcessor} because only the applications
 * that name it read it: the lock server and the rail proxy, run in the same JVM as a job in tests
 * and on the local platform, keep their own Liquibase changelogs.
 *
 * <pre>{@code
 * new SpringApplicationBuilder(MyJobApplication.class)
 *     .properties("spring.config.name=" + BatchDefaults.configNames("my-job"))
 *     .run(args);
 * }</pre>
 */
public final class BatchDefaults {

  /** The name of batch-support's configuration file, {@code batch-defaults.yaml}. */
  public static final String CONFIG_NAME = "batch-defaults";

  /** The changelog that owns the job repository schema (module {@code db}). */
  public static final String BATCHDB_CHANGELOG =
      "classpath:db/changelog/batchdb/db.changelog-master.yaml";

  private BatchDefaults() {}

  /**
   * The {@code spring.config.name} of a job application whose own file is {@code
   * <jobConfigName>.yaml}: batch-support's defaults first, so the job's own settings win.
   */
  public static String configNames(String jobConfigName) {
    if (jobConfigName == null || jobConfigName.isBlank() || jobConfigName.contains(",")) {
      throw new IllegalArgumentException(
          "a job's config name is one non-blank name, got '" + jobConfigName + "'");
    }
    return CONFIG_NAME + "," + jobConfigName;
  }
}
