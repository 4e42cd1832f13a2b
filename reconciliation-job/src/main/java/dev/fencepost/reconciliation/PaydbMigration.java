package dev.fencepost.reconciliation;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import liquibase.Scope;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;

/**
 * Applies the paydb changelog (module {@code db}) to paydb, which brings this module's own tables
 * (changeset paydb-005). Done by hand rather than by Boot's Liquibase auto-configuration, which
 * belongs to batchdb here. Liquibase's changelog lock makes concurrent start-ups safe.
 */
final class PaydbMigration {

  static final String CHANGELOG = "db/changelog/paydb/db.changelog-master.yaml";

  private PaydbMigration() {}

  static void apply(DataSource paydb) {
    try (Connection connection = paydb.getConnection()) {
      Database database =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(connection));
      Scope.child(
          Scope.Attr.resourceAccessor.name(),
          new ClassLoaderResourceAccessor(PaydbMigration.class.getClassLoader()),
          () ->
              new CommandScope(UpdateCommandStep.COMMAND_NAME)
                  .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                  .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG)
                  .execute());
    } catch (SQLException e) {
      throw new IllegalStateException("could not connect to paydb", e);
    } catch (Exception e) {
      throw new IllegalStateException("could not apply " + CHANGELOG + " to paydb", e);
    }
  }
}
