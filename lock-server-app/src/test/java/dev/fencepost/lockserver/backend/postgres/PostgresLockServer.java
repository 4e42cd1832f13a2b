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
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--management.server.port=0");
    args.add("--server.address=127.0.0.1");
    args.add("--spring.datasource.url=" + lockdb.jdbcUrl());
    args.add("--spring.datasource.username=" + lockdb.database().runtime().username());
    args.add("--spring.datasource.password=" + lockdb.database().runtime().password());
    // Short enough for the tests' own leases.
    args.add("--fencepost.lock.min-ttl=1s");
    args.add("--logging.structured.format.console=");
    args.add(TestGrants.lockServerArg());
    args.add(TestIdentities.serverArg());
    args.addAll(List.of(moreArgs));
    return LockServerApplication.application().run(args.toArray(String[]::new));
  }
}
