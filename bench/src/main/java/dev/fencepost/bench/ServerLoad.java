package dev.fencepost.bench;

import dev.fencepost.launcher.LocalTls;
import dev.fencepost.launcher.process.JavaProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Many idle sessions heartbeating at a fixed rate against one lock server (the "10,000 sessions
 * every 5 s" target), and the lock server's heap per idle session and per held lock, measured as
 * the live heap after a full GC (jcmd GC.run; GC.heap_info) before and after.
 */
public final class ServerLoad {

  /**
   * How the keepalives reach the server: one HTTP request each, on kept-alive connections shared by
   * the sender threads, or one frame each on the session's own keepalive stream (ADR 0224), one
   * connection per session as 10,000 lock clients would hold them.
   */
  public enum Transport {
    /** One request per keepalive over kept-alive connections shared by the sender threads. */
    REQUEST,
    /**
     * One request per keepalive over a kept-alive connection of the session's own, as 10,000 lock
     * clients would each hold one if their idle connections outlived the heartbeat interval.
     */
    REQUEST_OWN_CONNECTION,
    /**
     * One request per keepalive over a new connection (TCP, TLS), as an otherwise idle lock client
     * sent it until ADR 0225: the starter kept an idle connection 4 s and its heartbeat comes every
     * 5 s.
     */
    REQUEST_NEW_CONNECTION,
    /** One frame per keepalive on the session's keepalive stream (ADR 0224). */
    STREAM
  }

  /** What one server did. */
  public record Result(
      String server,
      Transport transport,
      int sessions,
      double heartbeatsPerSecond,
      LoadGenerator.Result heartbeats,
      double serverCores,
      double fsyncsPerHeartbeat,
      double writeTransactionsPerHeartbeat,
      long heapBaseline,
      long heapWithSessions,
      long heapBeforeLocks,
      long heapWithLocks,
      int locksHeld,
      long heapWithStreams,
      int streamsOpened,
      String error) {

    /**
     * Live heap per open keepalive stream (or per session's own kept-alive connection), above the
     * idle sessions' own.
     */
    public double bytesPerStream() {
      return !(transport == Transport.STREAM || transport == Transport.REQUEST_OWN_CONNECTION)
              || heapWithStreams < 0
              || heapWithSessions < 0
          ? Double.NaN
          : (double) (heapWithStreams - heapWithSessions) / sessions;
    }

    public double bytesPerSession() {
      return sessions == 0 || heapWithSessions < 0 || heapBaseline < 0
          ? Double.NaN
          : (double) (heapWithSessions - heapBaseline) / sessions;
    }

    /**
     * Live heap per held lock: measured just before and just after the locks are taken, both after
     * the load's streams and connections closed. Measured from the sessions' figure instead, it
     * counted what the load left behind as well: Tomcat keeps the buffers of closed connections for
     * reuse (up to a 32nd of the heap when the heap is over 2 GiB), which read as up to 4.4 KB per
     * lock.
     */
    public double bytesPerLock() {
      return locksHeld == 0 || heapWithLocks < 0 || heapBeforeLocks < 0
          ? Double.NaN
          : (double) (heapWithLocks - heapBeforeLocks) / locksHeld;
    }
  }

  /** Enough senders that 2,000 keepalives/s need only 16 ms each; fewer would cap the rate. */
  static final int THREADS = 32;

  /**
   * The heap's used figure in {@code GC.heap_info}: "total 397312K, used 18274K" up to Java 17,
   * "total reserved 6172672K, committed 393216K, used 12094K" from Java 21 on.
   */
  private static final Pattern USED =
      Pattern.compile("heap\\s+total (?:\\d+K|reserved \\d+K, committed \\d+K), used (\\d+)K");

  private ServerLoad() {}

  public static Result run(
      JavaProcess server,
      Transport transport,
      int sessions,
      Duration heartbeatEvery,
      Duration duration,
      boolean measureHeap,
      LongSupplier fsyncCounter,
      LongSupplier writeTransactionCounter) {
    // Keepalives go out as the starter sends them: one kept-alive connection per sender thread.
    ThreadLocal<PlainHttp> senders = ThreadLocal.withInitial(() -> new PlainHttp(server.baseUrl()));
    HttpClient http =
        HttpClient.newBuilder()
            .sslContext(LocalTls.forThisJvm().sslContext())
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      long baseline = measureHeap ? liveHeap(server, "baseline") : -1;
      List<String> ids = Collections.synchronizedList(new ArrayList<>());
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < sessions; i++) {
        int n = i;
        futures.add(
            pool.submit(
                () -> {
                  // A TTL that outlasts opening 10,000 streams (over a minute on etcd), which
                  // happens before the first keepalive; the keepalive's cost does not depend on it.
                  String body =
                      post(
                          http,
                          server.baseUrl() + "/v1/sessions",
                          "{\"owner\":\"hb-" + n + "\",\"ttlMillis\":300000}",
                          201);
                  ids.add(body.replaceAll(".*\"sessionId\"\\s*:\\s*\"([^\"]+)\".*", "$1"));
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      long withSessions = measureHeap ? liveHeap(server, "sessions") : -1;
      List<KeepAliveStreamSender> streams = new ArrayList<>();
      long withStreams = -1;
      int openedBefore = KeepAliveStreamSender.OPENED.get();
      if (transport == Transport.STREAM) {
        for (String id : ids) {
          streams.add(new KeepAliveStreamSender(http, server.baseUrl(), id));
        }
        futures.clear();
        for (KeepAliveStreamSender stream : streams) {
          futures.add(
              pool.submit(
                  () -> {
                    stream.open();
                    return null;
                  }));
        }
        for (Future<?> f : futures) {
          f.get();
        }
        withStreams = measureHeap ? liveHeap(server, "streams") : -1;
      }
      List<PlainHttp> own = new ArrayList<>();
      if (transport == Transport.REQUEST_OWN_CONNECTION) {
        for (String id : ids) {
          own.add(new PlainHttp(server.baseUrl()));
        }
        // Each connection opened (and its first keepalive sent) before the window, as streams are.
        futures.clear();
        for (int i = 0; i < ids.size(); i++) {
          PlainHttp connection = own.get(i);
          String path = "/v1/sessions/" + ids.get(i) + "/keepalive";
          futures.add(pool.submit(() -> connection.send("POST", path, "")));
        }
        for (Future<?> f : futures) {
          f.get();
        }
        withStreams = measureHeap ? liveHeap(server, "streams") : -1;
      }
      double rate = sessions / (heartbeatEvery.toMillis() / 1000.0);
      long cpuBefore = Environment.pidCpu(Environment.serverPid(server), false);
      long fsyncBefore = fsyncCounter.getAsLong();
      long writesBefore = writeTransactionCounter.getAsLong();
      long t0 = System.nanoTime();
      LoadGenerator.Result r =
          LoadGenerator.fixedRate(
              THREADS,
              rate,
              duration,
              new LoadGenerator.Operation() {
                private final java.util.concurrent.atomic.AtomicLong next =
                    new java.util.concurrent.atomic.AtomicLong();

                @Override
                public void run(int thread) throws Exception {
                  int n = (int) (next.getAndIncrement() % ids.size());
                  if (transport == Transport.STREAM) {
                    streams.get(n).keepAlive(Duration.ofSeconds(10));
                    return;
                  }
                  String id = ids.get(n);
                  String path = "/v1/sessions/" + id + "/keepalive";
                  if (transport != Transport.REQUEST) {
                    int status;
                    if (transport == Transport.REQUEST_OWN_CONNECTION) {
                      status = own.get(n).send("POST", path, "");
                    } else {
                      try (PlainHttp fresh = new PlainHttp(server.baseUrl())) {
                        status = fresh.send("POST", path, "");
                      }
                    }
                    if (status != 200) {
                      throw new IllegalStateException("keepalive answered " + status);
                    }
                    return;
                  }
                  int status = senders.get().send("POST", "/v1/sessions/" + id + "/keepalive", "");
                  if (status != 200) {
                    throw new IllegalStateException("keepalive answered " + status);
                  }
                }
              });
      double wall = (System.nanoTime() - t0) / 1e9;
      long cpu = Environment.pidCpu(Environment.serverPid(server), false) - cpuBefore;
      long fsyncs = fsyncCounter.getAsLong() - fsyncBefore;
      long writesAfter = writeTransactionCounter.getAsLong();
      int streamsOpened = KeepAliveStreamSender.OPENED.get() - openedBefore;
      streams.forEach(KeepAliveStreamSender::close);
      own.forEach(PlainHttp::close);
      futures.clear();
      if (measureHeap) {
        awaitNoStreams(server);
      }
      long beforeLocks = measureHeap ? liveHeap(server, "before-locks") : -1;
      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        String key = "mem:" + i;
        futures.add(
            pool.submit(
                () ->
                    post(
                        http,
                        server.baseUrl() + "/v1/locks/" + key + "/acquire",
                        "{\"sessionId\":\"" + id + "\",\"waitMillis\":0}",
                        200)));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      long withLocks = measureHeap ? liveHeap(server, "locks") : -1;
      futures.clear();
      for (String id : ids) {
        futures.add(
            pool.submit(
                () ->
                    http.send(
                        HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/sessions/" + id))
                            .header("Authorization", BenchIdentity.authorization())
                            .DELETE()
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                        HttpResponse.BodyHandlers.discarding())));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      return new Result(
          server.name(),
          transport,
          sessions,
          rate,
          r,
          cpu / 1e9 / wall,
          r.operations() == 0 || fsyncBefore < 0 ? Double.NaN : (double) fsyncs / r.operations(),
          r.operations() == 0 || writesBefore < 0 || writesAfter < 0
              ? Double.NaN
              : (double) (writesAfter - writesBefore) / r.operations(),
          baseline,
          withSessions,
          beforeLocks,
          withLocks,
          ids.size(),
          withStreams,
          streamsOpened,
          null);
    } catch (Exception e) {
      return new Result(
          server.name(),
          transport,
          sessions,
          0,
          null,
          Double.NaN,
          Double.NaN,
          Double.NaN,
          -1,
          -1,
          -1,
          -1,
          0,
          -1,
          0,
          LoadGenerator.describe(e));
    } finally {
      pool.shutdownNow();
    }
  }

  private static String post(HttpClient http, String url, String body, int expected)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .header("Authorization", BenchIdentity.authorization())
            .timeout(Duration.ofSeconds(10));
    if (body.isEmpty()) {
      request.POST(HttpRequest.BodyPublishers.noBody());
    } else {
      request
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(body));
    }
    HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != expected) {
      throw new IllegalStateException(url + " answered " + r.statusCode() + ": " + r.body());
    }
    return r.body();
  }

  /**
   * Waits, up to a minute, until the server has let go of every keepalive stream the load aborted
   * (its {@code fencepost_lock_keepalive_streams} gauge reads 0), so that a heap measured next
   * holds none of them.
   */
  private static void awaitNoStreams(JavaProcess server) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (System.nanoTime() < deadline) {
      String scrape = ServerThreads.scrape(server);
      // The gauge's line, with or without common tags; not its _opened_total counter.
      List<Double> open =
          scrape
              .lines()
              .filter(
                  l ->
                      l.startsWith("fencepost_lock_keepalive_streams ")
                          || l.startsWith("fencepost_lock_keepalive_streams{"))
              .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
              .toList();
      if (open.isEmpty()) {
        throw new IllegalStateException("the server's scrape has no keepalive streams gauge");
      }
      if (open.stream().allMatch(n -> n == 0)) {
        return;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("the server still holds keepalive streams a minute after");
  }

  /**
   * Live heap in bytes after a full GC. With {@code bench.heapHistograms} set to a folder, the live
   * objects by class at that point are written there too, as {@code <server>-<stage>.txt}, so that
   * a heap figure can be taken apart by diffing two stages.
   */
  static long liveHeap(JavaProcess server, String stage) {
    Environment.jcmd(server, "GC.run");
    String histograms = System.getProperty("bench.heapHistograms");
    if (histograms != null) {
      try {
        Path dir = Files.createDirectories(Path.of(histograms));
        Files.writeString(
            dir.resolve(server.name() + "-" + stage + ".txt"),
            Environment.jcmd(server, "GC.class_histogram"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return usedHeapBytes(Environment.jcmd(server, "GC.heap_info"));
  }

  /**
   * The used heap in {@code GC.heap_info}'s output, in bytes.
   *
   * @throws IllegalStateException when the output names none (jcmd failed, or a JDK printed a
   *     format not known here): a report must not print a heap figure it did not read, as the
   *     suite's first run on Java 25 printed "NaN B per session" under a "not met"
   */
  static long usedHeapBytes(String heapInfo) {
    Matcher m = USED.matcher(heapInfo);
    if (!m.find()) {
      throw new IllegalStateException(
          "no used heap in jcmd GC.heap_info's output: "
              + heapInfo.substring(0, Math.min(heapInfo.length(), 300)));
    }
    return Long.parseLong(m.group(1)) * 1024;
  }
}
