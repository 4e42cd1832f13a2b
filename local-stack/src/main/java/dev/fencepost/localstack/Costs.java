package dev.fencepost.localstack;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one finished payout cost the platform ({@link CostMeter}), in two windows.
 *
 * @param steady from 10 % to 90 % of the run's payouts finished: the platform at work, clear of the
 *     worker JVMs' start-up
 * @param whole the whole worker phase, start-up included
 * @param tenths each tenth of the run's payouts in turn: how the cost changes as the platform warms
 *     up and as the work grows
 */
public record Costs(Window steady, Window whole, java.util.List<Tenth> tenths) {

  /**
   * One tenth of the run.
   *
   * @param payouts payouts finished in it
   * @param seconds how long it took
   * @param cpuMillis CPU ms per payout, every process together
   * @param workerCpuMillis of which the workers'
   * @param compilerCpuMillis of which the JIT compiler threads' of every JVM: while it is a large
   *     share, the JVMs are still compiling their code and the platform is not yet warm
   * @param checkpoints PostgreSQL checkpoints begun in it (ADR 0220)
   */
  public record Tenth(
      long payouts,
      double seconds,
      double cpuMillis,
      double workerCpuMillis,
      double compilerCpuMillis,
      long checkpoints) {

    static Tenth between(CostMeter.Reading from, CostMeter.Reading to) {
      long payouts = to.finished() - from.finished();
      double n = Math.max(1, payouts);
      Map<String, Double> cpu = perPayout(from.cpuNanos(), to.cpuNanos(), 1e6, n);
      return new Tenth(
          payouts,
          (to.nanos() - from.nanos()) / 1e9,
          cpu.get("all"),
          cpu.get("workers"),
          perPayout(from.compilerNanos(), to.compilerNanos(), 1e6, n).get("all"),
          to.checkpoints() - from.checkpoints());
    }
  }

  /**
   * Each counter's growth between two readings in {@code unit}s per payout ({@code n} payouts), and
   * their sum as {@code all}.
   */
  static Map<String, Double> perPayout(
      Map<String, Long> from, Map<String, Long> to, double unit, double n) {
    Map<String, Double> perPayout = new LinkedHashMap<>();
    long all = 0;
    for (Map.Entry<String, Long> e : to.entrySet()) {
      long delta = e.getValue() - from.getOrDefault(e.getKey(), 0L);
      all += delta;
      perPayout.put(e.getKey(), delta / unit / n);
    }
    perPayout.put("all", all / unit / n);
    return perPayout;
  }

  /** Statements listed per window, the most expensive first. */
  static final int TOP_STATEMENTS = 25;

  /**
   * One normalised statement's calls and execution time ({@code pg_stat_statements}); in a window,
   * per payout.
   */
  public record Statement(String database, String query, double calls, double millis) {

    Statement plus(Statement other) {
      return new Statement(database, query, calls + other.calls, millis + other.millis);
    }
  }

  /**
   * One window's costs per finished payout.
   *
   * @param payouts payouts finished in the window
   * @param seconds its length
   * @param complete false when the run ended (at its deadline) before the window's end point, so
   *     the window stops at the end of the run instead
   * @param cpuMillis CPU ms per payout by process (utime + stime; the workers and PostgreSQL with
   *     the processes of theirs that exited), and {@code all}
   * @param compilerCpuMillis of the CPU above, what each JVM's JIT compiler threads used, per
   *     payout, and {@code all}: compiling the platform's code rather than running it (ADR 0217)
   * @param cores CPU used in the window per second of it: {@code all}'s share of the machine
   * @param commits transactions committed per payout by database ({@code pg_stat_database}), and
   *     {@code all}
   * @param requests HTTP requests served per payout by service (its scrape's {@code
   *     http_server_requests}, management port excluded), and {@code all}
   * @param requestsByUri the same by service, method and URI template
   * @param loopbackBytes bytes sent over loopback per payout, by every process on the machine
   * @param tcpOpens TCP connections opened per payout, by every process on the machine (ADR 0232)
   * @param walBytes WAL bytes per payout (the one PostgreSQL server of the four databases)
   * @param walSyncs WAL fsyncs per payout
   * @param walFullPageImages WAL full-page images per payout: pages written whole to the WAL on
   *     their first change after a checkpoint began, so high just after one (ADR 0220)
   * @param checkpoints checkpoints begun in the window, on schedule or asked for (a count, not per
   *     payout)
   * @param statements the costliest statements by execution time per payout (empty unless the run
   *     kept statement statistics)
   */
  public record Window(
      long payouts,
      double seconds,
      boolean complete,
      Map<String, Double> cpuMillis,
      Map<String, Double> compilerCpuMillis,
      double cores,
      Map<String, Double> commits,
      Map<String, Double> requests,
      Map<String, Map<String, Double>> requestsByUri,
      double loopbackBytes,
      double tcpOpens,
      double walBytes,
      double walSyncs,
      double walFullPageImages,
      long checkpoints,
      java.util.List<Statement> statements) {

    static Window between(CostMeter.Reading from, CostMeter.Reading to, boolean complete) {
      long payouts = to.finished() - from.finished();
      double n = Math.max(1, payouts);
      double seconds = (to.nanos() - from.nanos()) / 1e9;
      Map<String, Double> cpu = perPayout(from.cpuNanos(), to.cpuNanos(), 1e6, n);
      Map<String, Double> compiling = perPayout(from.compilerNanos(), to.compilerNanos(), 1e6, n);
      Map<String, Double> commits = perPayout(from.commits(), to.commits(), 1, n);
      Map<String, Double> requests = new LinkedHashMap<>();
      Map<String, Map<String, Double>> byUri = new LinkedHashMap<>();
      long allRequests = 0;
      for (Map.Entry<String, Map<String, Long>> service : to.requests().entrySet()) {
        Map<String, Long> before = from.requests().getOrDefault(service.getKey(), Map.of());
        Map<String, Double> uris = new LinkedHashMap<>();
        long total = 0;
        for (Map.Entry<String, Long> uri : service.getValue().entrySet()) {
          long delta = uri.getValue() - before.getOrDefault(uri.getKey(), 0L);
          if (delta > 0) {
            uris.put(uri.getKey(), delta / n);
            total += delta;
          }
        }
        allRequests += total;
        requests.put(service.getKey(), total / n);
        byUri.put(service.getKey(), uris);
      }
      requests.put("all", allRequests / n);
      return new Window(
          payouts,
          seconds,
          complete,
          cpu,
          compiling,
          seconds <= 0 ? 0 : cpu.get("all") * n / 1e3 / seconds,
          commits,
          requests,
          byUri,
          (to.loopbackBytes() - from.loopbackBytes()) / n,
          (to.tcpOpens() - from.tcpOpens()) / n,
          (to.walBytes() - from.walBytes()) / n,
          (to.walSyncs() - from.walSyncs()) / n,
          (to.walFullPageImages() - from.walFullPageImages()) / n,
          to.checkpoints() - from.checkpoints(),
          statements(from, to, n));
    }

    private static java.util.List<Statement> statements(
        CostMeter.Reading from, CostMeter.Reading to, double n) {
      return to.statements().entrySet().stream()
          .map(
              e -> {
                Statement before = from.statements().get(e.getKey());
                Statement after = e.getValue();
                double calls = after.calls() - (before == null ? 0 : before.calls());
                double millis = after.millis() - (before == null ? 0 : before.millis());
                return new Statement(after.database(), after.query(), calls / n, millis / n);
              })
          .filter(st -> st.calls() > 0)
          .sorted(java.util.Comparator.comparingDouble(Statement::millis).reversed())
          .limit(TOP_STATEMENTS)
          .toList();
    }

    /** A few lines for the run's summary. */
    String text(String name) {
      StringBuilder out = new StringBuilder();
      out.append(
          String.format(
              "    per payout, %s (%d payouts in %.1f s%s, %.2f cores busy):%n",
              name, payouts, seconds, complete ? "" : ", cut short by the run's end", cores));
      out.append("      CPU ms   ");
      cpuMillis.forEach((k, v) -> out.append(String.format(" %s %.2f", k, v)));
      out.append("\n      of which JIT compilers");
      compilerCpuMillis.forEach((k, v) -> out.append(String.format(" %s %.2f", k, v)));
      out.append("\n      commits  ");
      commits.forEach((k, v) -> out.append(String.format(" %s %.2f", k, v)));
      out.append("\n      requests ");
      requests.forEach((k, v) -> out.append(String.format(" %s %.2f", k, v)));
      out.append(
          String.format(
              "%n      loopback %.1f KiB, %.3f TCP connections opened, WAL %.1f KiB (%.2f full-page"
                  + " images), %.2f WAL fsyncs; %d checkpoint(s) begun%n",
              loopbackBytes / 1024,
              tcpOpens,
              walBytes / 1024,
              walFullPageImages,
              walSyncs,
              checkpoints));
      for (Statement st : statements.subList(0, Math.min(10, statements.size()))) {
        String sql = st.query().replaceAll("\\s+", " ");
        out.append(
            String.format(
                "      %7.3f ms %5.2f calls  %-8s %s%n",
                st.millis(),
                st.calls(),
                st.database(),
                sql.length() > 90 ? sql.substring(0, 90) + "..." : sql));
      }
      return out.toString();
    }
  }

  String text() {
    StringBuilder out =
        new StringBuilder(
            "    by tenth of the run, CPU ms per payout (workers', JIT compilers' of every JVM),"
                + " payouts/s, checkpoints begun:");
    for (Tenth t : tenths) {
      out.append(
          String.format(
              " %.1f (%.1f, %.1f) %.0f/s %d;",
              t.cpuMillis(),
              t.workerCpuMillis(),
              t.compilerCpuMillis(),
              t.payouts() / Math.max(0.001, t.seconds()),
              t.checkpoints()));
    }
    return out.append('\n')
        .append(steady.text("steady"))
        .append(whole.text("whole worker phase"))
        .toString();
  }
}
