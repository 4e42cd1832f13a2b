package dev.fencepost.experiments.restore;

import dev.fencepost.experiments.harness.EtcdGrants;
import dev.fencepost.experiments.harness.ExperimentRun;
import dev.fencepost.experiments.harness.LockServers;
import dev.fencepost.history.Extractors;
import dev.fencepost.history.Records;
import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import dev.fencepost.launcher.process.JavaProcess;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;

/**
 * A lock backend this scenario owns, with a cold backup and a restore done the way an operator
 * would do them on that backend, and the restore procedure (ADR 0003, ADR 0016) as its flag.
 */
public interface RestoreTarget extends AutoCloseable {

  String name();

  /**
   * Launches a lock server on this backend, with the procedure's floor when {@code floor} is not
   * null; the caller awaits its health.
   */
  default JavaProcess launch(ExperimentRun run, String phase, Long floor) {
    List<String> args = new ArrayList<>(lockServerArgs());
    if (floor != null) {
      args.add("--" + floorProperty() + "=" + floor);
    }
    return LockServers.launch(
        "lock-server-" + phase,
        run.dir().resolve("logs").resolve("lock-server-" + phase + ".log"),
        args);
  }

  /** The lock server's arguments that put it on this backend. */
  List<String> lockServerArgs();

  /** The lock server's property that carries the restore procedure's floor on this backend. */
  String floorProperty();

  /** A cold backup (the lock server is stopped). */
  void backup();

  /** Puts the backup back (the lock server is stopped). */
  void restore();

  /** The backend's own grant history as it is now. */
  List<Records.Grant> history();

  /** The last history id the store has (right after a restore: the backup's last one). */
  long lastHistoryId();

  /** The highest token the backend itself could already have issued (ADR 0003 step 2: L). */
  long highestOwnToken();

  /**
   * The procedure's floor from the guards' highest token {@code g} and the backend's own {@code l}.
   */
  default long floor(long g, long l) {
    return Math.max(g, l) + margin();
  }

  /** What the procedure adds above the highest token either side has seen. */
  long margin();

  /** How this backend's backup, restore and floor are done, for the report. */
  String procedure();

  @Override
  void close();

  /**
   * lockdb on the harness's PostgreSQL server, in its own database. Embedded PostgreSQL ships no
   * pg_dump, so the backup is {@code CREATE DATABASE backup TEMPLATE lockdb} with no connection
   * open to lockdb: a file-level copy of a database nobody is using, sequence included, which is
   * what a cold backup is. The restore drops lockdb and re-creates it from that template.
   */
  final class Postgres implements RestoreTarget {
    private final EmbeddedPostgresServer server;
    private final PostgresDatabase lockdb;
    private final String backup;

    public Postgres(EmbeddedPostgresServer server) {
      this.server = server;
      this.lockdb = server.createDatabase("exp_inv04_lockdb");
      this.backup = lockdb.name() + "_backup";
    }

    @Override
    public String name() {
      return "PostgreSQL";
    }

    /** The lockdb this target backs up and restores (a game day reads it as the runbook does). */
    public PostgresDatabase lockdb() {
      return lockdb;
    }

    @Override
    public List<String> lockServerArgs() {
      return LockServers.on(lockdb);
    }

    @Override
    public String floorProperty() {
      return "fencepost.lock.postgres.token-floor";
    }

    @Override
    public void backup() {
      admin("CREATE DATABASE " + backup + " TEMPLATE " + lockdb.name());
    }

    @Override
    public void restore() {
      admin("DROP DATABASE " + lockdb.name());
      admin("CREATE DATABASE " + lockdb.name() + " TEMPLATE " + backup);
    }

    /** lockdb's {@code lock_event}, through the history checker's own extractor. */
    @Override
    public List<Records.Grant> history() {
      try (Connection c =
          DriverManager.getConnection(lockdb.jdbcUrl(), lockdb.username(), lockdb.password())) {
        return Extractors.lockdb(c).stream().map(Records.Grant.class::cast).toList();
      } catch (SQLException e) {
        throw new IllegalStateException("lock_event extraction failed", e);
      }
    }

    @Override
    public long lastHistoryId() {
      return query("SELECT coalesce(max(id), 0) FROM lock_event");
    }

    @Override
    public long highestOwnToken() {
      return Math.max(
          query("SELECT coalesce(max(token), 0) FROM lock_event"),
          query("SELECT last_value FROM lock_token_seq"));
    }

    /** ADR 0003 step 3: past both, with a margin for tokens issued after the guards were read. */
    static final long MARGIN = 1_000_000;

    @Override
    public long margin() {
      return MARGIN;
    }

    @Override
    public String procedure() {
      return "backup = `CREATE DATABASE lockdb_backup TEMPLATE lockdb` with the lock server stopped"
          + " (embedded PostgreSQL has no pg_dump; a template copy of an unused database is a"
          + " faithful cold copy, `lock_token_seq` included); restore = `DROP DATABASE lockdb;"
          + " CREATE DATABASE lockdb TEMPLATE lockdb_backup`; procedure (ADR 0003) ="
          + " `--fencepost.lock.postgres.token-floor=GREATEST(G, L) + "
          + MARGIN
          + "`, G = the guards' highest fence / high-water, L = the restored lockdb's highest"
          + " token";
    }

    private long query(String sql) {
      return Inv04RestoreIT.max(lockdb, sql);
    }

    private void admin(String sql) {
      try (Connection c = server.adminConnection();
          Statement s = c.createStatement()) {
        s.execute(sql);
      } catch (SQLException e) {
        throw new IllegalStateException(sql, e);
      }
    }

    @Override
    public void close() {
      // The databases stay on the harness's server; it is deleted with the test JVM.
    }
  }

  /**
   * A one-member etcd of this scenario's own (the launcher's {@link EtcdCluster}). Backup = a copy
   * of the killed member's data directory (a volume snapshot; etcd fsyncs its WAL before it
   * answers, so a SIGKILL leaves a consistent directory); restore = that copy put back and the
   * member restarted. The restore procedure on etcd is {@code fencepost.lock.etcd.revision-floor}
   * (ADR 0016).
   */
  final class Etcd implements RestoreTarget {
    private final EtcdCluster cluster = EtcdCluster.single();
    private final Path backupDir;

    Etcd() {
      try {
        this.backupDir = Files.createTempDirectory("inv04-etcd-backup-").resolve("member");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private EtcdMember member() {
      return cluster.member(0);
    }

    @Override
    public String name() {
      return "etcd";
    }

    @Override
    public List<String> lockServerArgs() {
      return LockServers.onEtcd(cluster.endpoints());
    }

    @Override
    public String floorProperty() {
      return "fencepost.lock.etcd.revision-floor";
    }

    @Override
    public void backup() {
      member().kill();
      member().copyDataDirectoryTo(backupDir);
      member().restart();
    }

    @Override
    public void restore() {
      member().kill();
      member().restoreDataDirectoryFrom(backupDir);
      member().restart();
    }

    /** etcd's lock history, read by a watch of the whole prefix ({@link EtcdGrants}). */
    @Override
    public List<Records.Grant> history() {
      return EtcdGrants.read(cluster.endpoints());
    }

    /** The revision the store is at (right after a restore: the backup's last revision). */
    @Override
    public long lastHistoryId() {
      try (Client client = client()) {
        return client
            .getKVClient()
            .get(
                ByteSequence.from("/", StandardCharsets.UTF_8),
                GetOption.builder().withCountOnly(true).build())
            .get()
            .getHeader()
            .getRevision();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } catch (ExecutionException e) {
        throw new IllegalStateException("etcd read failed", e);
      }
    }

    private Client client() {
      return Client.builder().endpoints(cluster.endpoints().split(",")).build();
    }

    @Override
    public long highestOwnToken() {
      return lastHistoryId();
    }

    /**
     * ADR 0016: the highest fence either guard holds; plus a small margin (the floor is reached by
     * writes, 64 in flight, so ADR 0003's million would cost minutes here).
     */
    static final long MARGIN = 1_000;

    @Override
    public long margin() {
      return MARGIN;
    }

    @Override
    public String procedure() {
      return "backup = a copy of the killed member's data directory (the launcher's"
          + " `EtcdMember.copyDataDirectoryTo`); restore = `restoreDataDirectoryFrom` and a"
          + " restart; procedure (ADR 0016) = `--fencepost.lock.etcd.revision-floor=max(G, L) + "
          + MARGIN
          + "`, G = the guards' highest fence / high-water, L = the restored store's revision";
    }

    @Override
    public void close() {
      cluster.close();
    }
  }
}
