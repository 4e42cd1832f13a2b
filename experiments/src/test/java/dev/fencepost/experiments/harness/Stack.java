package dev.fencepost.experiments.harness;

import dev.fencepost.experiments.harness.Guards.ProxyGuards;
import dev.fencepost.launcher.etcd.EtcdCluster;
import dev.fencepost.launcher.postgres.EmbeddedPostgresServer;
import dev.fencepost.launcher.postgres.PostgresDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * The long-lived parts every scenario of this test JVM shares, started on first use and stopped at
 * JVM exit: one dedicated embedded PostgreSQL (lockdb, proxydb, batchdb; each run gets its own
 * paydb, see {@link ExperimentRun}), the lock server (per {@link LockBackend}), the rail stub, and
 * one rail proxy per combination of its two switches. All are real processes from their exec jars.
 * Scenarios keep apart by their own accounts, and the harness keeps only their records.
 */
public final class Stack {

  private static Stack shared;

  private final Path logs;
  private final EmbeddedPostgresServer postgres;
  private final PostgresDatabase lockdb;
  private final PostgresDatabase proxydb;
  private final PostgresDatabase batchdb;
  private final JarProcess stub;
  private final Map<LockBackend, JarProcess> lockServers = new EnumMap<>(LockBackend.class);
  private final Map<ProxyGuards, JarProcess> proxies = new HashMap<>();
  private final List<AutoCloseable> closeLast = new ArrayList<>();
  private EtcdCluster etcd;
  private final HttpClient http = HttpClient.newHttpClient();

  /** The shared stack of this test JVM. */
  public static synchronized Stack shared() {
    if (shared == null) {
      shared = new Stack();
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
    }
    return shared;
  }

  private Stack() {
    logs = Settings.runsDir().resolve("_stack");
    postgres = EmbeddedPostgresServer.startDedicated();
    lockdb = postgres.createDatabase("exp_lockdb");
    proxydb = postgres.createDatabase("exp_proxydb");
    // Migrated here, once: two workers booting together on a fresh batchdb race to create
    // Liquibase's own tables ("relation databasechangelog already exists").
    batchdb =
        postgres
            .createDatabase("exp_batchdb")
            .applyChangelog("db/changelog/batchdb/db.changelog-master.yaml");
    stub =
        JarProcess.start(
            "rail-stub",
            Settings.jar("experiments.stub.jar"),
            "128m",
            logs.resolve("rail-stub.log"),
            List.of("--fencepost.stub.hang=3s"));
    awaitHealthy(stub);
  }

  public EmbeddedPostgresServer postgres() {
    return postgres;
  }

  public PostgresDatabase lockdb() {
    return lockdb;
  }

  public PostgresDatabase proxydb() {
    return proxydb;
  }

  public PostgresDatabase batchdb() {
    return batchdb;
  }

  public JarProcess stub() {
    return stub;
  }

  /** The etcd cluster of the {@link LockBackend#ETCD} lock server, once started. */
  public synchronized EtcdCluster etcd() {
    lockServer(LockBackend.ETCD);
    return etcd;
  }

  /** The lock server on {@code backend}, started on first use. */
  public synchronized JarProcess lockServer(LockBackend backend) {
    return lockServers.computeIfAbsent(
        backend,
        b -> {
          List<String> args = new ArrayList<>();
          if (b == LockBackend.POSTGRES) {
            args.add("--spring.datasource.url=" + lockdb.jdbcUrl());
            args.add("--spring.datasource.username=" + lockdb.username());
            args.add("--spring.datasource.password=" + lockdb.password());
          } else {
            etcd = EtcdCluster.single();
            closeLast.add(etcd);
            args.add("--fencepost.lock.backend=etcd");
            args.add("--fencepost.lock.etcd.endpoints=" + etcd.endpoints());
          }
          JarProcess server =
              JarProcess.start(
                  "lock-server-" + b.name().toLowerCase(),
                  Settings.jar("experiments.lockserver.jar"),
                  "192m",
                  logs.resolve("lock-server-" + b.name().toLowerCase() + ".log"),
                  args);
          awaitHealthy(server);
          return server;
        });
  }

  /** The rail proxy with these switches, started on first use (on the shared proxydb). */
  public synchronized JarProcess proxy(Guards guards) {
    return proxies.computeIfAbsent(
        guards.proxy(),
        g -> {
          String name =
              "rail-proxy-hw-"
                  + (g.highWater() ? "on" : "off")
                  + "-uq-"
                  + (g.uniqueness() ? "on" : "off");
          List<String> args = new ArrayList<>();
          args.add("--spring.datasource.url=" + proxydb.jdbcUrl());
          args.add("--spring.datasource.username=" + proxydb.username());
          args.add("--spring.datasource.password=" + proxydb.password());
          args.add("--fencepost.rail.base-url=" + stub.baseUrl());
          // Short, so a rail timeout costs a second; the stub's hang (3 s) is longer.
          args.add("--fencepost.rail.timeout=1s");
          if (!g.allOn()) {
            args.add("--fencepost.proxy.fencing.experiment=true");
            args.add("--fencepost.proxy.fencing.high-water-enabled=" + g.highWater());
            args.add("--fencepost.proxy.fencing.uniqueness-enabled=" + g.uniqueness());
          }
          JarProcess proxy =
              JarProcess.start(
                  name,
                  Settings.jar("experiments.proxy.jar"),
                  "192m",
                  logs.resolve(name + ".log"),
                  args);
          awaitHealthy(proxy);
          return proxy;
        });
  }

  /** Replaces the stub's fault plan (docs/rail.md): {@code overrides} by client reference. */
  public void railFaults(Map<String, String> overridesByClientReference) {
    StringBuilder overrides = new StringBuilder();
    overridesByClientReference.forEach(
        (reference, mode) ->
            overrides
                .append(overrides.isEmpty() ? "" : ",")
                .append('"')
                .append(reference)
                .append("\":\"")
                .append(mode)
                .append('"'));
    String plan = "{\"rates\":{},\"overrides\":{" + overrides + "},\"lookupLagMillis\":0}";
    HttpResponse<String> response =
        send(
            HttpRequest.newBuilder(URI.create(stub.baseUrl() + "/rail/admin/faults"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(plan))
                .build());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("fault plan refused: " + response.body());
    }
  }

  /** Restores the stub's start-up fault plan (no faults). */
  public void resetRailFaults() {
    send(
        HttpRequest.newBuilder(URI.create(stub.baseUrl() + "/rail/admin/faults")).DELETE().build());
  }

  HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void awaitHealthy(JarProcess process) {
    Awaitility.await(process.name() + " healthy (log " + process.log() + ")")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptions()
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException(process.name() + " exited; see " + process.log());
              }
              return send(HttpRequest.newBuilder(URI.create(process.baseUrl() + "/actuator/health"))
                          .timeout(Duration.ofSeconds(2))
                          .GET()
                          .build())
                      .statusCode()
                  == 200;
            });
  }

  private synchronized void close() {
    proxies.values().forEach(JarProcess::close);
    lockServers.values().forEach(JarProcess::close);
    stub.close();
    for (AutoCloseable c : closeLast) {
      try {
        c.close();
      } catch (Exception e) {
        // shutting down: nothing more to do with it
      }
    }
    postgres.close();
  }
}
