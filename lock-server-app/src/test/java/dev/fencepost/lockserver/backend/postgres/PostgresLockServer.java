package dev.fencepost.lockserver.backend.postgres;

import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.lockserver.TestIdentities;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.util.ArrayList;
import java.util.List;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The real lock server application on lockdb in embedded PostgreSQL, started in this JVM on a free
 * loopback port, trusting the module's test issuer and signing grants with the test keys (as {@code
 * EtcdLockServer} does for etcd).
 */
public final class PostgresLockServer {

  private PostgresLockServer() {}

  /**
   * @param lockdb the database, migrated by the extension as its owner; the server connects as its
   *     runtime role (ADR 0160)
   * @param moreArgs further {@code --name=value} settings
   */
  public static ConfigurableApplicationContext start(
      EmbeddedPostgresExtension lockdb, String... moreArgs) {
    return startThrough(lockdb, lockdb.jdbcUrl(), moreArgs);
  }

  /**
   * @param lockdb the database, whose runtime role the server connects as
   * @param lockdbUrl the JDBC URL the server uses for it (for example through a proxy in front of
   *     it)
   * @param moreArgs further {@code --name=value} settings
   */
  public static ConfigurableApplicationContext startThrough(
      EmbeddedPostgresExtension lockdb, String lockdbUrl, String... moreArgs) {
    var runtime = lockdb.database().runtime();
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--management.server.port=0");
    args.add("--server.address=127.0.0.1");
    args.add("--spring.datasource.url=" + lockdbUrl);
    args.add("--spring.datasource.username=" + runtime.username());
    args.add("--spring.datasource.password=" + runtime.password());
    // Short enough for the tests' own leases.
    args.add("--fencepost.lock.min-ttl=1s");
    args.add("--logging.structured.format.console=");
    args.add(TestGrants.lockServerArg());
    args.add(TestIdentities.serverArg());
    args.addAll(List.of(moreArgs));
    return LockServerApplication.application().run(args.toArray(String[]::new));
  }
}
