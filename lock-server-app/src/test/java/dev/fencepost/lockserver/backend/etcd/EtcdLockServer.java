package dev.fencepost.lockserver.backend.etcd;

import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.lockserver.TestIdentities;
import dev.fencepost.testsupport.grants.TestGrants;
import java.util.ArrayList;
import java.util.List;
import org.springframework.context.ConfigurableApplicationContext;

/** The real lock server application on etcd, started in this JVM on a free loopback port. */
final class EtcdLockServer {

  private EtcdLockServer() {}

  /**
   * @param endpoints the etcd members, comma-separated, in the order this instance lists them
   * @param keyPrefix where this server keeps its keys in etcd
   * @param moreArgs further {@code --name=value} settings
   */
  static ConfigurableApplicationContext start(
      String endpoints, String keyPrefix, String... moreArgs) {
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--management.server.port=0");
    args.add("--server.address=127.0.0.1");
    args.add("--fencepost.lock.backend=etcd");
    args.add("--fencepost.lock.etcd.endpoints=" + endpoints);
    args.add("--fencepost.lock.etcd.key-prefix=" + keyPrefix);
    args.add("--logging.structured.format.console=");
    args.add(TestGrants.lockServerArg());
    args.add(TestIdentities.serverArg());
    args.addAll(List.of(moreArgs));
    return LockServerApplication.application().run(args.toArray(String[]::new));
  }
}
