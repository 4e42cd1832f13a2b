/**
 * What every Fencepost Spring Batch job shares (issue 7; used by {@code payoutJob} and {@code
 * reconciliationJob}).
 *
 * <h2>Using it</h2>
 *
 * Put {@code dev.fencepost:batch-support} on the classpath of a Spring Boot application that
 * declares one or more {@code Job} beans. The auto-configuration {@link
 * dev.fencepost.batch.BatchSupportAutoConfiguration} then gives it:
 *
 * <ul>
 *   <li><b>The job repository on batchdb.</b> batchdb is the application's ordinary {@code
 *       spring.datasource.*} DataSource: Boot's JDBC, Liquibase, health and metrics
 *       auto-configuration all target it. Its schema is the {@code db} module's {@code
 *       db/changelog/batchdb/db.changelog-master.yaml}, applied by Liquibase at start-up; Boot's
 *       own Batch schema script is off ({@code spring.batch.jdbc.initialize-schema=never}). Both
 *       come from batch-support's own {@code batch-defaults.yaml}, which the application reads
 *       first by naming it in its {@code spring.config.name} ({@link
 *       dev.fencepost.batch.BatchDefaults#configNames(String)}; see there why it is not contributed
 *       automatically). A job's own databases (paydb, ...) must be declared as
 *       {@code @Bean(defaultCandidate = false)} with a qualifier, so that they never replace
 *       batchdb in Boot's auto-configuration.
 *   <li><b>{@code /actuator/batchjobs/{jobName}}</b> ({@link
 *       dev.fencepost.batch.BatchJobsEndpoint}, expose it with {@code
 *       management.endpoints.web.exposure.include=batchjobs,...}): {@code POST} launches a new
 *       instance (optional body {@code {"parameters": {"k": "v"}}}) asynchronously and answers 202
 *       with the execution id; {@code GET} lists recent executions (status, start/end, exit code
 *       and description, read/write/filter/skip counts) from the job repository.
 *   <li><b>{@link dev.fencepost.batch.LaunchParameters}</b>: every launch, by the endpoint or by
 *       the start-up runner ({@link dev.fencepost.batch.UniqueLaunchJobRunner}, which replaces
 *       Boot's), is a new job instance with a random {@code launch.id}, so any number of pods may
 *       start the same job at once (A-05, UC-02). Jobs declare no incrementer (Batch 6 would drop
 *       the caller's parameters).
 * </ul>
 *
 * Boot's {@code spring.batch.job.enabled} keeps its meaning: a CronJob-style process runs its job
 * at start-up and exits with the job's exit code; a long-running process sets it to {@code false}
 * and launches through the endpoint.
 */
package dev.fencepost.batch;
