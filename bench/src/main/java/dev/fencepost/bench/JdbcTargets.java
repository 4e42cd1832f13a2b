package dev.fencepost.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** P1 raw JDBC lock table, P3 ShedLock, P4 Spring Integration's JdbcLockRegistry; one benchdb. */
public final class JdbcTargets {

  /** How often P1's waiting acquire re-tries (it has no way to wait). */
  static final long RETRY_MILLIS = 2;

  private JdbcTargets() {}

  /** Creates the peers' tables: P1's lock table, ShedLock's table, and INT_LOCK from the jar. */
  public static void createSchema(DataSource dataSource) throws Exception {
    String intLock;
    try (InputStream in =
        JdbcLockRegistry.class.getResourceAsStream(
            "/org/springframework/integration/jdbc/schema-postgresql.sql")) {
      String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int start = all.indexOf("CREATE TABLE INT_LOCK");
      intLock = all.substring(start, all.indexOf(";", start));
    }
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE SEQUENCE IF NOT EXISTS bench_lock_token NO CYCLE");
      s.execute(
          "CREATE TABLE IF NOT EXISTS bench_lock (lock_key text PRIMARY KEY, owner text NOT NULL,"
              + " token bigint NOT NULL, expires_at timestamptz NOT NULL)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY,"
              + " lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL,"
              + " locked_by VARCHAR(255) NOT NULL)");
      s.execute(intLock);
    }
  }

  /**
   * P1: one autocommit statement per operation. Acquire is an upsert that takes a free or expired
   * row and returns a token from a sequence; release is a compare-and-delete on (key, token).
   */
  public static LockTarget rawTable(HikariDataSource pool) {
    return new LockTarget.Described(
        "P1",
        "raw JDBC lock table: upsert ... RETURNING token / compare-and-delete",
        Store.POSTGRES,
        EnumSet.of(Op.ACQUIRE, Op.PAIR, Op.TRY_HELD, Op.HANDOFF, Op.RENEW, Op.INSPECT)) {

      @Override
      public String why(Op op) {
        return op == Op.HANDOFF
            ? "no waiting primitive: the waiter re-tries every " + RETRY_MILLIS + " ms"
            : "";
      }

      @Override
      public Client client(int index) throws Exception {
        Connection c = pool.getConnection();
        c.setAutoCommit(true);
        PreparedStatement acquire =
            c.prepareStatement(
                "INSERT INTO bench_lock (lock_key, owner, token, expires_at)"
                    + " VALUES (?, ?, nextval('bench_lock_token'), now() + interval '30 seconds')"
                    + " ON CONFLICT (lock_key) DO UPDATE SET owner = EXCLUDED.owner,"
                    + " token = EXCLUDED.token, expires_at = EXCLUDED.expires_at"
                    + " WHERE bench_lock.expires_at < now() RETURNING token");
        PreparedStatement release =
            c.prepareStatement("DELETE FROM bench_lock WHERE lock_key = ? AND token = ?");
        PreparedStatement renew =
            c.prepareStatement(
                "UPDATE bench_lock SET expires_at = now() + interval '30 seconds'"
                    + " WHERE lock_key = ? AND token = ?");
        PreparedStatement inspect =
            c.prepareStatement(
                "SELECT owner, token, expires_at FROM bench_lock WHERE lock_key = ?");
        String owner = "worker-" + index;
        return new Client() {
          @Override
          public Object acquire(String key) throws Exception {
            acquire.setString(1, key);
            acquire.setString(2, owner);
            try (ResultSet rs = acquire.executeQuery()) {
              return rs.next() ? rs.getLong(1) : null;
            }
          }

          @Override
          public Object acquireWaiting(String key, Duration max) throws Exception {
            long deadline = System.nanoTime() + max.toNanos();
            while (System.nanoTime() < deadline) {
              Object token = acquire(key);
              if (token != null) {
                return token;
              }
              TimeUnit.MILLISECONDS.sleep(RETRY_MILLIS);
            }
            throw new IllegalStateException("no hand-off within " + max);
          }

          @Override
          public void release(String key, Object handle) throws Exception {
            release.setString(1, key);
            release.setLong(2, (Long) handle);
            if (release.executeUpdate() != 1) {
              throw new IllegalStateException("release of " + key + " found another grant");
            }
          }

          @Override
          public Object renew(String key, Object handle) throws Exception {
            renew.setString(1, key);
            renew.setLong(2, (Long) handle);
            if (renew.executeUpdate() != 1) {
              throw new IllegalStateException("renew of " + key + " lost the lock");
            }
            return handle;
          }

          @Override
          public void inspect(String key) throws Exception {
            inspect.setString(1, key);
            try (ResultSet rs = inspect.executeQuery()) {
              rs.next();
            }
          }

          @Override
          public void close() throws Exception {
            c.close();
          }
        };
      }
    };
  }

  /** P3: ShedLock's JdbcTemplateLockProvider, usingDbTime(), lockAtMostFor 30 s. */
  public static LockTarget shedLock(DataSource dataSource) {
    JdbcTemplateLockProvider provider =
        new JdbcTemplateLockProvider(
            JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(dataSource))
                .usingDbTime()
                .build());
    return new LockTarget.Described(
        "P3",
        "ShedLock JdbcTemplateLockProvider (usingDbTime)",
        Store.POSTGRES,
        EnumSet.of(Op.ACQUIRE, Op.PAIR, Op.TRY_HELD, Op.RENEW)) {

      @Override
      public String why(Op op) {
        return switch (op) {
          case HANDOFF -> "ShedLock has no waiting acquire (it skips the task when locked)";
          case INSPECT -> "no inspect API";
          case RENEW -> "SimpleLock.extend(30 s, 0)";
          case PAIR, ACQUIRE -> "unlock sets lock_until = now (row kept: later acquires UPDATE)";
          default -> "";
        };
      }

      @Override
      public Client client(int index) {
        return new Client() {
          @Override
          public Object acquire(String key) {
            Optional<SimpleLock> lock =
                provider.lock(
                    new LockConfiguration(
                        Instant.now(), key, Duration.ofSeconds(30), Duration.ZERO));
            return lock.orElse(null);
          }

          @Override
          public void release(String key, Object handle) {
            ((SimpleLock) handle).unlock();
          }

          @Override
          public Object renew(String key, Object handle) {
            // extend returns a new SimpleLock and invalidates the old one.
            return ((SimpleLock) handle)
                .extend(Duration.ofSeconds(30), Duration.ZERO)
                .orElseThrow(() -> new IllegalStateException("extend of " + key + " failed"));
          }
        };
      }
    };
  }

  /**
   * P4: Spring Integration's JdbcLockRegistry over DefaultLockRepository; one registry (client id)
   * per worker, as one per process, so workers contend through the database, not a local lock.
   */
  public static LockTarget springIntegration(DataSource dataSource) {
    DataSourceTransactionManager tx = new DataSourceTransactionManager(dataSource);
    return new LockTarget.Described(
        "P4",
        "Spring Integration JdbcLockRegistry (DefaultLockRepository, TTL 30 s)",
        Store.POSTGRES,
        EnumSet.of(Op.ACQUIRE, Op.PAIR, Op.TRY_HELD, Op.HANDOFF, Op.RENEW)) {

      @Override
      public String why(Op op) {
        return switch (op) {
          case HANDOFF -> "lock(): polls the table every idleBetweenTries (left at its default)";
          case INSPECT -> "no inspect API";
          case RENEW -> "JdbcLockRegistry.renewLock(key)";
          default -> "";
        };
      }

      @Override
      public Client client(int index) {
        DefaultLockRepository repository =
            new DefaultLockRepository(dataSource, "bench-p4-" + index);
        repository.setTransactionManager(tx);
        repository.setTimeToLive(30_000);
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        repository.start();
        JdbcLockRegistry registry = new JdbcLockRegistry(repository);
        return new Client() {
          @Override
          public Object acquire(String key) {
            Lock lock = registry.obtain(key);
            return lock.tryLock() ? lock : null;
          }

          @Override
          public Object acquireWaiting(String key, Duration max) throws Exception {
            Lock lock = registry.obtain(key);
            if (!lock.tryLock(max.toMillis(), TimeUnit.MILLISECONDS)) {
              throw new IllegalStateException("no hand-off within " + max);
            }
            return lock;
          }

          @Override
          public void release(String key, Object handle) {
            ((Lock) handle).unlock();
          }

          @Override
          public Object renew(String key, Object handle) {
            registry.renewLock(key);
            return handle;
          }

          @Override
          public void close() {
            repository.stop();
            repository.close();
          }
        };
      }
    };
  }
}
