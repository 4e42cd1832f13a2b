package dev.fencepost.batch;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Contributes the batchdb defaults at the lowest precedence, so any application property wins: the
 * Liquibase changelog that owns the Spring Batch 6 schema, and Boot's own schema initialisation
 * switched off, so that a Batch upgrade cannot change batchdb without a reviewed changeset.
 */
public class BatchSupportEnvironmentPostProcessor implements EnvironmentPostProcessor {

  static final String PROPERTY_SOURCE = "fencepostBatchDefaults";

  /** The changelog that owns the job repository schema (module {@code db}). */
  public static final String BATCHDB_CHANGELOG =
      "classpath:db/changelog/batchdb/db.changelog-master.yaml";

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    environment
        .getPropertySources()
        .addLast(
            new MapPropertySource(
                PROPERTY_SOURCE,
                Map.of(
                    "spring.batch.jdbc.initialize-schema",
                    "never",
                    "spring.liquibase.change-log",
                    BATCHDB_CHANGELOG)));
  }
}
