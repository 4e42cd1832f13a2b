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
   * @param lockdb the database, its changelog applied by the server at start
   * @param moreArgs further {@code --name=value} settings
   */
  public static ConfigurableApplicationContext start(
      EmbeddedPostgresExtension lockdb, String... moreArgs) {
    return start(lockdb.jdbcUrl(), moreArgs);
  }

  /**
   * @param lockdbUrl the JDBC URL of lockdb (for example through a proxy in front of it)
   * @param moreArgs further {@code --name=value} settings
   */
  public static ConfigurableApplicationContext start(String lockdbUrl, String... moreArgs) {
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--management.server.port=0");
    args.add("--server.address=127.0.0.1");
    args.add("--spring.datasource.url=" + lockdbUrl);
    // Short enough for the tests' own leases.
    args.add("--fencepost.lock.min-ttl=1s");
    args.add("--logging.structured.format.console=");
    args.add(TestGrants.lockServerArg());
    args.add(TestIdentities.serverArg());
    args.addAll(List.of(moreArgs));
    return LockServerApplication.application().run(args.toArray(String[]::new));
  }
}
