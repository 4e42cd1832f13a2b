package dev.fencepost.experiments.harness;

import dev.fencepost.launcher.App;
import dev.fencepost.launcher.GrantSigningKeys;
import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.LocalPlatform;
import dev.fencepost.launcher.LocalTls;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Lock server processes of the experiments: the shared {@link Stack}'s, and those a scenario owns
 * so that it can stop, kill and restart them around a backup, a restore, an outage or a chaos fault
 * without touching the shared one. Each is the lock server's runnable jar ({@link App#LOCK_SERVER})
 * on a loopback port chosen before it starts and kept across restarts, so workers can boot (held at
 * their start gate) while it starts and keep its URL afterwards. A start that dies is retried on
 * that port ({@link #START_ATTEMPTS}): on a loaded two-core machine the lock server's 2 s lockdb
 * connection timeout can expire during its own start-up (Liquibase), which says nothing about the
 * scenario.
 */
public final class LockServers {

  /** How long one start may take. */
  public static final Duration START_TIMEOUT = Duration.ofMinutes(3);

  /** Starts of one lock server before it counts as failed. */
  public static final int START_ATTEMPTS = 3;

  private static GrantSigningKeys grantKeys;
  private static LocalIdentity identity;

  private LockServers() {}

  /**
   * The grant-signing keys of every lock server of this test JVM (ADR 0136): one set, so that the
   * proxies verify grants whichever lock server a scenario's workers use, and across restarts.
   */
  public static synchronized GrantSigningKeys grantKeys() {
    if (grantKeys == null) {
      grantKeys =
          GrantSigningKeys.generate(Settings.runsDir().resolve("_stack").resolve("grant-keys"));
    }
    return grantKeys;
  }

  /**
   * The identity issuer of this test JVM's experiments, started on first use and stopped when the
   * JVM exits: every lock server here trusts it, every worker and direct caller gets its tokens.
   */
  public static synchronized LocalIdentity identity() {
    if (identity == null) {
      // First: every process of the experiments serves HTTPS and trusts this JVM's CA, written
      // next to the shared stack's logs (ADR 0150).
      tls();
      identity = LocalIdentity.start(Settings.runsDir().resolve("_identity"), START_TIMEOUT);
      LocalIdentity started = identity;
      Runtime.getRuntime().addShutdownHook(new Thread(started::close));
    }
    return identity;
  }

  /**
   * The TLS of this test JVM's experiments (ADR 0150): one CA, in {@code _stack/tls} of the runs
   * directory; the processes started through {@link App} serve with it, and this JVM trusts it.
   */
  public static LocalTls tls() {
    return LocalTls.forThisJvm(Settings.runsDir().resolve("_stack").resolve("tls"));
  }

  /**
   * Starts a lock server with {@code backend}'s arguments and returns at once; see {@link
   * #awaitUp}.
   */
  public static JavaProcess launch(String name, Path log, List<String> backend) {
    return LocalIdentity.withEnvironment(
            App.LOCK_SERVER.process(name, log), identity().serviceEnvironment())
        .httpPort(0)
        .arg("--spring.main.banner-mode=off")
        .arg(grantKeys().lockServerArg())
        .args(backend)
        .start();
  }

  /** {@link #launch} and {@link #awaitUp}. */
  public static JavaProcess start(String name, Path log, List<String> backend) {
    return awaitUp(launch(name, log, backend));
  }

  /** Waits until it answers its health check, starting it again on its port if it dies. */
  public static JavaProcess awaitUp(JavaProcess server) {
    return server.awaitHealthy(START_TIMEOUT, START_ATTEMPTS);
  }

  /** Starts a stopped or killed lock server again on its port and waits until it is up. */
  public static JavaProcess restart(JavaProcess server) {
    return awaitUp(server.restart());
  }

  /**
   * The arguments that put a lock server on a PostgreSQL lockdb, as its runtime role: lockdb is
   * migrated first, as its owner (idempotent; ADR 0160).
   */
  public static List<String> on(PostgresDatabase lockdb) {
    lockdb.applyChangelog("db/changelog/lockdb/db.changelog-master.yaml");
    return LocalPlatform.postgresArgs(lockdb);
  }

  /** The arguments that put a lock server on etcd. */
  public static List<String> onEtcd(String endpoints) {
    return List.of("--fencepost.lock.backend=etcd", "--fencepost.lock.etcd.endpoints=" + endpoints);
  }
}
