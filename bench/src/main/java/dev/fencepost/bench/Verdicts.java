package dev.fencepost.bench;

import dev.fencepost.bench.Suite.Cell;
import dev.fencepost.bench.Suite.Scenario;
import java.util.Locale;

/**
 * The lock targets, each met / not met / not enough samples with its ratio, from one run's
 * measurements; a percentile with too few samples behind it (Stats) decides nothing.
 */
final class Verdicts {

  private Verdicts() {}

  private static String f(String p, Object... a) {
    return String.format(Locale.ROOT, p, a);
  }

  /** A percentile in ms when the cell has the samples to quote it (Stats), else NaN. */
  private static double p(Cell c, double percentile) {
    return Stats.millis(c.latency, percentile).orElse(Double.NaN);
  }

  private static boolean ok(Cell c) {
    return c != null && c.operations > 0;
  }

  /** {@code v <= limit}, or null when v is not known (too few samples). */
  private static Boolean le(double v, double limit) {
    return Double.isNaN(v) ? null : v <= limit;
  }

  /** "not met" if any condition failed, else "not enough samples" if any is unknown, else "met". */
  static String verdict(Boolean... conditions) {
    boolean unknown = false;
    for (Boolean c : conditions) {
      if (c == null) {
        unknown = true;
      } else if (!c) {
        return "**not met**";
      }
    }
    return unknown ? "**" + Stats.NOT_ENOUGH + "**" : "**met**";
  }

  /** "1.234 ms (0.82x the limit)" or "not enough samples". */
  private static String vs(double v, double limit) {
    return Double.isNaN(v) ? Stats.NOT_ENOUGH : f("%.3f ms (%.2fx)", v, v / limit);
  }

  static String table(LockBench.Outcome o) {
    Suite s = o.suite();
    StringBuilder md = new StringBuilder();
    md.append("| target | measured | verdict |\n|---|---|---|\n");
    Cell e3 = s.cell(new Scenario(Op.ACQUIRE, 1), "E3");
    Cell e1 = s.cell(new Scenario(Op.ACQUIRE, 1), "E1");
    if (ok(e3) && ok(e1)) {
      double ratio = p(e3, 50) / p(e1, 50);
      md.append(
          f(
              "| E3 acquire, 1 client: p50 <= 1.5 ms, p99 <= 8 ms, p50 within 1.3x of E1 |"
                  + " p50 %s, p99 %s, E3/E1 p50 = %s (NFR-03's 10/50 ms: %s) | %s |\n",
              vs(p(e3, 50), 1.5),
              vs(p(e3, 99), 8),
              Double.isNaN(ratio) ? Stats.NOT_ENOUGH : f("%.2fx", ratio),
              verdict(le(p(e3, 50), 10), le(p(e3, 99), 50)).replace("*", ""),
              verdict(le(p(e3, 50), 1.5), le(p(e3, 99), 8), le(ratio, 1.3))));
    } else {
      md.append("| E3 acquire, 1 client | not measured | not measured |\n");
    }
    Cell e3pairs = s.cell(new Scenario(Op.PAIR, 64), "E3");
    if (ok(e3pairs)) {
      md.append(
          f(
              "| E3, 64 clients, distinct keys: >= 1,000 pairs/s, p99 <= 50 ms | %.0f pairs/s"
                  + " (%.2fx the target), p99 %s | %s |\n",
              e3pairs.throughput(),
              e3pairs.throughput() / 1000,
              vs(p(e3pairs, 99), 50),
              verdict(e3pairs.throughput() >= 1000, le(p(e3pairs, 99), 50))));
    } else {
      md.append("| E3, 64 clients | not measured | not measured |\n");
    }
    Cell p2 = s.cell(new Scenario(Op.ACQUIRE, 1), "P2");
    Cell p2pairs = s.cell(new Scenario(Op.PAIR, 8), "P2");
    Cell p1pairs = s.cell(new Scenario(Op.PAIR, 8), "P1");
    if (ok(p2) && ok(p2pairs) && ok(p1pairs)) {
      double ratio = p2pairs.throughput() / p1pairs.throughput();
      md.append(
          f(
              "| P2 acquire, 1 client: p50 <= 2 ms, p99 <= 10 ms; 8 clients >= 0.6x P1's pairs/s"
                  + " | p50 %s, p99 %s; %.0f vs P1 %.0f pairs/s = %.2fx | %s |\n",
              vs(p(p2, 50), 2),
              vs(p(p2, 99), 10),
              p2pairs.throughput(),
              p1pairs.throughput(),
              ratio,
              verdict(le(p(p2, 50), 2), le(p(p2, 99), 10), ratio >= 0.6)));
    } else {
      md.append("| P2 acquire / 8 clients vs P1 | not measured | not measured |\n");
    }
    int waiters = o.settings().handoffWaiters();
    Scenario handoff = new Scenario(Op.HANDOFF, waiters);
    Cell p4 = s.cell(handoff, "P4");
    for (String id : new String[] {"E3", "P2"}) {
      Cell h = s.cell(handoff, id);
      if (ok(h) && h.handoffs != null) {
        double speedup = ok(p4) ? p(p4, 50) / p(h, 50) : Double.NaN;
        String vsP4 =
            ok(p4) && p4.handoffs != null
                ? f(
                    "P4 p50 %s with %.0f %% of its hand-offs back to the releaser: ours is %s"
                        + " faster (target >= 10x)",
                    Double.isNaN(p(p4, 50)) ? Stats.NOT_ENOUGH : f("%.3f ms", p(p4, 50)),
                    100 * p4.handoffs.sameClientShare(),
                    Double.isNaN(speedup) ? Stats.NOT_ENOUGH : f("%.2fx", speedup))
                : "P4 not measured";
        md.append(
            f(
                "| %s contended hand-off (%d waiters): p50 <= 3 ms, p99 <= 15 ms, >= 10x faster"
                    + " than JdbcLockRegistry | every hand-off: p50 %s, p99 %s; %.0f %% back to"
                    + " the releaser, Jain %.3f; %s | %s |\n",
                id,
                waiters,
                vs(p(h, 50), 3),
                vs(p(h, 99), 15),
                100 * h.handoffs.sameClientShare(),
                h.handoffs.worstJain(),
                vsP4,
                verdict(
                    le(p(h, 50), 3),
                    le(p(h, 99), 15),
                    ok(p4) ? (Double.isNaN(speedup) ? null : speedup >= 10) : Boolean.FALSE)));
      } else {
        md.append("| ").append(id).append(" contended hand-off | not measured | not measured |\n");
      }
    }
    for (ServerLoad.Result r : o.serverLoad()) {
      if (r.heartbeats() == null) {
        md.append("| ")
            .append(r.server())
            .append(" sessions heartbeating | not measured: ")
            .append(r.error())
            .append(" | not measured |\n");
        continue;
      }
      boolean etcd = r.server().contains("etcd");
      double scaled = r.serverCores() * 10_000.0 / r.sessions();
      // Batched means fewer commits than heartbeats. WAL syncs alone cannot show it: with
      // synchronous_commit=off (the embedded default) no commit waits for a flush anyway.
      String fsyncPart =
          etcd
              ? f("fsync per heartbeat %.3f (target: none)", r.fsyncsPerHeartbeat())
              : f(
                  "commits per heartbeat %.3f, WAL syncs per heartbeat %.3f (target: batched,"
                      + " i.e. commits well below 1)",
                  r.writeTransactionsPerHeartbeat(), r.fsyncsPerHeartbeat());
      boolean fsyncMet =
          etcd
              ? r.fsyncsPerHeartbeat() < 0.05
              : r.writeTransactionsPerHeartbeat() < 0.5 && r.fsyncsPerHeartbeat() < 0.5;
      boolean met =
          scaled <= 0.15
              && fsyncMet
              && r.heartbeats().throughput() >= 0.95 * r.heartbeatsPerSecond();
      md.append(
          f(
              "| %s: 10,000 sessions heartbeating every 5 s: <= 0.15 core; %s | %d sessions"
                  + " (%s), %.0f of %.0f keepalives/s done, %.3f cores (%.2fx the limit, scaled"
                  + " to 10,000); %s%s | %s |\n",
              r.server(),
              etcd ? "no fsync per heartbeat" : "heartbeats batched",
              r.sessions(),
              r.transport() == ServerLoad.Transport.STREAM
                  ? "keepalive streams"
                  : "keepalive requests",
              r.heartbeats().throughput(),
              r.heartbeatsPerSecond(),
              scaled,
              scaled / 0.15,
              fsyncPart,
              r.heartbeats().throughput() < 0.95 * r.heartbeatsPerSecond()
                  ? f(
                      "; the server did not keep up (service p99 %s ms)",
                      Stats.quote(r.heartbeats().serviceTime(), 99))
                  : "",
              met ? "**met**" : "**not met**"));
      // A session that keeps itself alive over a stream holds the stream's memory as well.
      boolean streamed = !Double.isNaN(r.bytesPerStream());
      double perSession = r.bytesPerSession() + (streamed ? r.bytesPerStream() : 0);
      md.append(
          f(
              "| %s memory: <= 1 KiB heap per held lock, <= 2 KiB per idle session | %.0f B per"
                  + " lock (%.2fx), %.0f B per session (%.2fx)%s | %s |\n",
              r.server(),
              r.bytesPerLock(),
              r.bytesPerLock() / 1024,
              perSession,
              perSession / 2048,
              streamed
                  ? f(
                      ", of which %.0f B its %s",
                      r.bytesPerStream(),
                      r.transport() == ServerLoad.Transport.STREAM
                          ? "keepalive stream (ADR 0224)"
                          : "kept-alive connection")
                  : "",
              r.bytesPerLock() <= 1024 && perSession <= 2048 ? "**met**" : "**not met**"));
    }
    if (o.serverLoad().isEmpty()) {
      md.append(
          "| 10,000 sessions heartbeating; memory per lock/session | not measured | not measured |\n");
    }
    Cell f3 = s.cell(new Scenario(Op.FLOOR, 1), "F3");
    Cell f4 = s.cell(new Scenario(Op.FLOOR, 1), "F4");
    if (ok(f3)) {
      md.append(
          f(
              "| no-op HTTP request to the lock server p50 < 0.5 ms | p50 %s, p99 %s, sent as the"
                  + " starter sends (F3)%s | %s |\n",
              vs(p(f3, 50), 0.5),
              Stats.quote(f3.latency, 99),
              ok(f4)
                  ? f(
                      "; through the JDK HttpClient (F4): p50 %s, p99 %s",
                      Stats.quote(f4.latency, 50), Stats.quote(f4.latency, 99))
                  : "",
              verdict(Double.isNaN(p(f3, 50)) ? null : p(f3, 50) < 0.5)));
    } else {
      md.append("| no-op HTTP p50 < 0.5 ms | not measured | not measured |\n");
    }
    return md.toString();
  }
}
