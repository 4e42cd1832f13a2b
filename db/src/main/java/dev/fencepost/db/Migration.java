package dev.fencepost.db;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.changelog.ChangeLogParameters;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DatabaseChangelogCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.command.core.helpers.ShowSummaryArgument;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;

/**
 * The migration step (ADR 0160): applies one database's master changelog while connected as that
 * database's owner role, and has the changelog grant the runtime role exactly what its application
 * runs. Applications do not migrate; they connect as the runtime role, which owns nothing.
 *
 * <p>From the command line (a Kubernetes Job or an init container before the application):
 *
 * <pre>
 * FENCEPOST_DB_PASSWORD=... java -jar db-exec.jar paydb \
 *     --url=jdbc:postgresql://HOST:5432/paydb --username=paydb_owner --runtime-role=paydb_app
 * </pre>
 *
 * The owner's password is read from {@value #PASSWORD_ENVIRONMENT} only, never from the command
 * line (a process list shows arguments). Both roles exist before: the DBA creates them (locally,
 * the launcher does).
 */
public final class Migration {

  /** The databases, each with its master changelog. */
  public enum Target {
    LOCKDB,
    PAYDB,
    PROXYDB,
    BATCHDB;

    /** The master changelog's class-path location. */
    public String changelog() {
      return "db/changelog/" + name().toLowerCase(Locale.ROOT) + "/db.changelog-master.yaml";
    }

    /** The target of a master changelog, e.g. for {@code db/changelog/paydb/...}. */
    public static Target ofChangelog(String changelog) {
      for (Target target : values()) {
        if (target.changelog().equals(changelog)) {
          return target;
        }
      }
      throw new IllegalArgumentException("not a master changelog: " + changelog);
    }
  }

  /** The changelog parameter naming the role the changelogs grant to. */
  public static final String RUNTIME_ROLE_PARAMETER = "runtime_role";

  /** Where the command line reads the owner's password from. */
  public static final String PASSWORD_ENVIRONMENT = "FENCEPOST_DB_PASSWORD";

  // The changelogs write the role unquoted into GRANT statements: only a plain lower-case name.
  private static final Pattern ROLE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private Migration() {}

  /**
   * Applies {@code target}'s changelog over {@code owner}, a connection as the database's owner
   * role, granting {@code runtimeRole}. Refuses a runtime role that does not exist, is the owner,
   * or is a superuser (grants would mean nothing to it).
   */
  public static void apply(Connection owner, Target target, String runtimeRole) {
    requireSeparateRuntimeRole(owner, runtimeRole);
    try {
      Database database =
          DatabaseFactory.getInstance()
              .findCorrectDatabaseImplementation(new JdbcConnection(owner));
      ChangeLogParameters parameters = new ChangeLogParameters(database);
      parameters.set(RUNTIME_ROLE_PARAMETER, runtimeRole);
      Map<String, Object> scope = new LinkedHashMap<>();
      scope.put(
          Scope.Attr.resourceAccessor.name(),
          new ClassLoaderResourceAccessor(Migration.class.getClassLoader()));
      // Liquibase's console UI would print an update summary to standard output: it goes to the
      // log instead, so a launcher's console shows only what it chooses to.
      scope.put(Scope.Attr.ui.name(), new LoggerUIService());
      Scope.child(
          scope,
          () ->
              new CommandScope(UpdateCommandStep.COMMAND_NAME)
                  .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                  .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, target.changelog())
                  .addArgumentValue(DatabaseChangelogCommandStep.CHANGELOG_PARAMETERS, parameters)
                  .addArgumentValue(
                      ShowSummaryArgument.SHOW_SUMMARY_OUTPUT, UpdateSummaryOutputEnum.LOG)
                  .execute());
    } catch (Exception e) {
      throw new IllegalStateException(
          "could not apply " + target.changelog() + " for runtime role " + runtimeRole, e);
    }
  }

  /** The same over a new connection as {@code ownerUser}. */
  public static void apply(
      String url, String ownerUser, String ownerPassword, Target target, String runtimeRole) {
    try (Connection owner = DriverManager.getConnection(url, ownerUser, ownerPassword)) {
      apply(owner, target, runtimeRole);
    } catch (SQLException e) {
      throw new IllegalStateException("could not connect to " + url + " as " + ownerUser, e);
    }
  }

  private static void requireSeparateRuntimeRole(Connection owner, String runtimeRole) {
    if (runtimeRole == null || !ROLE_NAME.matcher(runtimeRole).matches()) {
      throw new IllegalArgumentException(
          "runtime role must be a lower-case PostgreSQL name ([a-z_][a-z0-9_]*), got "
              + runtimeRole);
    }
    try (PreparedStatement s =
        owner.prepareStatement(
            "SELECT r.rolsuper, r.rolname = current_user FROM pg_roles r WHERE r.rolname = ?")) {
      s.setString(1, runtimeRole);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException(
              "runtime role "
                  + runtimeRole
                  + " does not exist: the DBA creates it before the migration (ADR 0160)");
        }
        if (rs.getBoolean(1) || rs.getBoolean(2)) {
          throw new IllegalStateException(
              "runtime role "
                  + runtimeRole
                  + " is a superuser or the migrating owner itself: it must be a role of its own"
                  + " with only the changelogs' grants (ADR 0160)");
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not look up runtime role " + runtimeRole, e);
    }
  }

  /**
   * {@code <lockdb|paydb|proxydb|batchdb> --url=... --username=<owner> --runtime-role=<role>}, the
   * owner's password in {@value #PASSWORD_ENVIRONMENT}. Exits 0 when the database is up to date, 2
   * on bad arguments, 1 when the migration failed.
   */
  public static void main(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    Target target = null;
    try {
      for (String arg : args) {
        if (arg.startsWith("--") && arg.indexOf('=') > 2) {
          options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        } else if (target == null) {
          target = Target.valueOf(arg.toUpperCase(Locale.ROOT));
        } else {
          throw new IllegalArgumentException("unexpected argument " + arg);
        }
      }
      if (target == null) {
        throw new IllegalArgumentException("which database: lockdb, paydb, proxydb or batchdb");
      }
      for (String required : new String[] {"url", "username", "runtime-role"}) {
        if (options.getOrDefault(required, "").isBlank()) {
          throw new IllegalArgumentException("--" + required + "= is required");
        }
      }
    } catch (IllegalArgumentException e) {
      System.err.println(
          "usage: "
              + PASSWORD_ENVIRONMENT
              + "=... java -jar db-exec.jar <lockdb|paydb|proxydb|batchdb> --url=jdbc:postgresql://"
              + "HOST:PORT/DB --username=OWNER --runtime-role=ROLE\n"
              + e.getMessage());
      System.exit(2);
      return;
    }
    String password = System.getenv(PASSWORD_ENVIRONMENT);
    if (password == null || password.isEmpty()) {
      System.err.println(PASSWORD_ENVIRONMENT + " is not set: the owner's password is required");
      System.exit(2);
      return;
    }
    try {
      apply(
          options.get("url"),
          options.get("username"),
          password,
          target,
          options.get("runtime-role"));
    } catch (RuntimeException e) {
      System.err.println(
          "{\"event\":\"db.migration.failed\",\"database\":\""
              + target.name().toLowerCase(Locale.ROOT)
              + "\"} "
              + e);
      System.exit(1);
      return;
    }
    System.out.println(
        "{\"event\":\"db.migration.applied\",\"database\":\""
            + target.name().toLowerCase(Locale.ROOT)
            + "\",\"runtimeRole\":\""
            + options.get("runtime-role")
            + "\"}");
  }
}
