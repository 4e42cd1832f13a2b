package dev.fencepost.history;

import dev.fencepost.history.Records.ClientOp;
import dev.fencepost.history.Records.Effect;
import dev.fencepost.history.Records.Event;
import dev.fencepost.history.Records.GuardDecision;
import dev.fencepost.history.Records.RailMovement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * One scenario as an SVG picture, built as a plain string: a lane per worker with its grant
 * intervals (from the worker's successful acquire to its release, labelled with the token), its
 * effects as diamonds, guard decisions as marks (green dot accepted, red cross rejected), harness
 * events (SIGSTOP, SIGCONT, ...) as dashed lines, and a rail lane with the stub's movements.
 *
 * <p>The axis is the host's monotonic clock ({@code nanos}). Records that carry only a wall-clock
 * {@code at} (database rows) are placed through the offset between the two clocks measured on the
 * records that carry both; without such a record they are left out and the picture says how many.
 */
public final class Timeline {

  private static final int LEFT = 140;
  private static final int WIDTH = 1100;
  private static final int LANE = 56;
  private static final int TOP = 50;

  private Timeline() {}

  /** The SVG document, or null when the history has no worker and no movement to draw. */
  public static String render(History h, String title) {
    return render(h, title, Checker.DEFAULT_KEY_PREFIX);
  }

  public static String render(History h, String title, String keyPrefix) {
    TreeSet<String> workers = new TreeSet<>();
    h.clientOps.forEach(op -> workers.add(op.worker()));
    h.effects.forEach(x -> workers.add(x.worker()));
    h.events.stream().filter(e -> e.worker() != null).forEach(e -> workers.add(e.worker()));
    h.guardDecisions.stream().filter(d -> d.worker() != null).forEach(d -> workers.add(d.worker()));
    if (workers.isEmpty() && h.railMovements.isEmpty()) {
      return null;
    }
    Long offset = wallMinusMonotonic(h);
    Map<String, String> workerOfGrant = new HashMap<>();
    for (ClientOp op : h.clientOps) {
      if (op.ok() && op.op().equals("ACQUIRE")) {
        workerOfGrant.put(op.key() + "|" + op.token(), op.worker());
      }
    }

    List<String> lanes = new ArrayList<>(workers);
    boolean guardLane = false;
    List<Object[]> guardMarks = new ArrayList<>();
    int omitted = 0;
    for (GuardDecision d : h.guardDecisions) {
      Long t = position(d.nanos(), d.at(), offset);
      if (t == null) {
        omitted++;
        continue;
      }
      String worker =
          d.worker() != null
              ? d.worker()
              : workerOfGrant.get(keyPrefix + d.account() + "|" + d.token());
      if (worker == null) {
        guardLane = true;
        worker = "guards";
      }
      guardMarks.add(new Object[] {worker, t, d});
    }
    if (guardLane) {
      lanes.add("guards");
    }
    lanes.add("rail");

    List<Long> instants = new ArrayList<>();
    h.clientOps.forEach(
        op -> {
          instants.add(op.invokeNanos());
          instants.add(op.completeNanos());
        });
    h.effects.forEach(x -> addIfPresent(instants, position(x.nanos(), x.at(), offset)));
    h.events.forEach(e -> addIfPresent(instants, position(e.nanos(), e.at(), offset)));
    guardMarks.forEach(m -> instants.add((Long) m[1]));
    for (RailMovement m : h.railMovements) {
      Long t = position(null, m.at(), offset);
      if (t == null) {
        omitted++;
      } else {
        instants.add(t);
      }
    }
    long start = instants.stream().mapToLong(Long::longValue).min().orElse(0);
    long end = instants.stream().mapToLong(Long::longValue).max().orElse(1);
    if (end <= start) {
      end = start + 1;
    }
    Axis axis = new Axis(start, end);

    int height = TOP + lanes.size() * LANE + 30;
    StringBuilder svg = new StringBuilder();
    svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(LEFT + WIDTH + 40)
        .append("\" height=\"")
        .append(height)
        .append("\" font-family=\"sans-serif\" font-size=\"11\">\n");
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    text(svg, 10, 20, 14, "bold", title);
    text(
        svg,
        10,
        36,
        10,
        "normal",
        String.format(
            Locale.ROOT,
            "%.1f s on the host's monotonic clock; bars: grants (token), faded where the backend"
                + " had ended it; green dot: guard accepted; red cross: guard rejected;"
                + " diamond: effect; triangle: rail movement; dashed: harness event%s",
            (end - start) / 1e9,
            omitted == 0 ? "" : "; " + omitted + " marks without a common clock omitted"));

    Map<String, Integer> laneY = new HashMap<>();
    for (int i = 0; i < lanes.size(); i++) {
      int y = TOP + i * LANE;
      laneY.put(lanes.get(i), y);
      svg.append("<g class=\"lane\" data-lane=\"").append(xml(lanes.get(i))).append("\">");
      svg.append("<rect x=\"")
          .append(LEFT)
          .append("\" y=\"")
          .append(y)
          .append("\" width=\"")
          .append(WIDTH)
          .append("\" height=\"")
          .append(LANE - 6)
          .append("\" fill=\"")
          .append(i % 2 == 0 ? "#f4f6f8" : "#eaeef2")
          .append("\"/>");
      text(svg, 10, y + LANE / 2, 12, "bold", lanes.get(i));
      svg.append("</g>\n");
    }

    // When the backend took each grant away (expiry, revoke, session closed; a release is the
    // holder's own act), on the monotonic axis.
    Map<String, Long> backendEnd = new HashMap<>();
    for (Records.Grant g : h.grants) {
      boolean takenAway = !g.acquired() && !g.kind().equals("RELEASED");
      Long t = takenAway ? position(null, g.at(), offset) : null;
      if (t != null) {
        backendEnd.merge(g.key() + "|" + g.token(), t, Math::min);
      }
    }
    // Grant intervals: acquire completed -> matching release completed (or the end of the run),
    // solid while the backend still held it, faded where only the worker believed it held it.
    for (ClientOp a : h.clientOps) {
      if (!a.ok() || !a.op().equals("ACQUIRE")) {
        continue;
      }
      long until = end;
      for (ClientOp r : h.clientOps) {
        if (r.ok()
            && r.op().equals("RELEASE")
            && r.worker().equals(a.worker())
            && r.key().equals(a.key())
            && r.token().equals(a.token())
            && r.completeNanos() >= a.completeNanos()) {
          until = Math.min(until, r.completeNanos());
        }
      }
      int y = laneY.get(a.worker()) + 6;
      double x1 = axis.x(a.completeNanos());
      Long ended = backendEnd.get(a.key() + "|" + a.token());
      if (ended != null && ended >= a.completeNanos() && ended < until) {
        double xe = axis.x(ended);
        svg.append("<rect class=\"grant-lost\" x=\"")
            .append(fmt(xe))
            .append("\" y=\"")
            .append(y)
            .append("\" width=\"")
            .append(fmt(Math.max(axis.x(until) - xe, 1)))
            .append("\" height=\"14\" fill=\"#8fb8de\" fill-opacity=\"0.3\" stroke=\"#3a6f9f\"")
            .append(" stroke-dasharray=\"3 2\"><title>")
            .append(
                xml(
                    a.key()
                        + " token "
                        + a.token()
                        + ": ended by the backend, still believed held"))
            .append("</title></rect>\n");
        until = ended;
      }
      double x2 = Math.max(axis.x(until), x1 + 2);
      svg.append("<rect class=\"grant\" x=\"")
          .append(fmt(x1))
          .append("\" y=\"")
          .append(y)
          .append("\" width=\"")
          .append(fmt(x2 - x1))
          .append("\" height=\"14\" fill=\"#8fb8de\" stroke=\"#3a6f9f\"><title>")
          .append(xml(a.key() + " token " + a.token()))
          .append("</title></rect>");
      text(svg, x1 + 3, y + 11, 10, "normal", "T" + a.token());
      svg.append('\n');
    }
    Map<String, Double> lastLabel = new HashMap<>();
    for (Effect x : h.effects) {
      Long t = position(x.nanos(), x.at(), offset);
      if (t == null) {
        continue;
      }
      double cx = axis.x(t);
      int cy = laneY.get(x.worker()) + 30;
      svg.append("<path class=\"effect\" d=\"M")
          .append(fmt(cx))
          .append(' ')
          .append(cy - 5)
          .append(" l5 5 l-5 5 l-5 -5 z\" fill=\"#555\"><title>")
          .append(
              xml(
                  x.what()
                      + " "
                      + (x.payoutId() == null ? "" : x.payoutId() + " ")
                      + "T"
                      + x.token()
                      + (x.outcome() == null ? "" : " " + x.outcome())))
          .append("</title></path>");
      Double previous = lastLabel.get(x.worker());
      if (previous == null || cx - previous > 45) {
        text(svg, cx + 6, cy + 9, 9, "normal", x.what());
        lastLabel.put(x.worker(), cx);
      }
      svg.append('\n');
    }
    for (Object[] m : guardMarks) {
      GuardDecision d = (GuardDecision) m[2];
      double cx = axis.x((Long) m[1]);
      int cy = laneY.get((String) m[0]) + 44;
      String label =
          d.guard()
              + " "
              + d.decision()
              + " T"
              + d.token()
              + (d.stored() == null ? "" : " (stored " + d.stored() + ")")
              + (d.reason() == null ? "" : " " + d.reason());
      if (d.accepted()) {
        svg.append("<circle class=\"guard-accepted\" cx=\"")
            .append(fmt(cx))
            .append("\" cy=\"")
            .append(cy)
            .append("\" r=\"4\" fill=\"#2e9d44\"><title>")
            .append(xml(label))
            .append("</title></circle>\n");
      } else {
        svg.append("<path class=\"guard-rejected\" d=\"M")
            .append(fmt(cx - 4))
            .append(' ')
            .append(cy - 4)
            .append(" l8 8 m0 -8 l-8 8\" stroke=\"#c62828\" stroke-width=\"2\"><title>")
            .append(xml(label))
            .append("</title></path>\n");
      }
    }
    int railY = laneY.get("rail");
    for (RailMovement m : h.railMovements) {
      Long t = position(null, m.at(), offset);
      if (t == null) {
        continue;
      }
      double cx = axis.x(t);
      svg.append("<path class=\"movement\" d=\"M")
          .append(fmt(cx))
          .append(' ')
          .append(railY + 10)
          .append(" l6 12 l-12 0 z\" fill=\"#e08a00\"><title>")
          .append(xml(m.clientReference() + " -> " + m.railReference()))
          .append("</title></path>\n");
    }
    for (Event e : h.events) {
      Long t = position(e.nanos(), e.at(), offset);
      if (t == null) {
        continue;
      }
      double x = axis.x(t);
      int y1 = e.worker() == null ? TOP : laneY.get(e.worker());
      int y2 = e.worker() == null ? TOP + lanes.size() * LANE : y1 + LANE - 6;
      verticalLine(svg, "event", x, y1, y2)
          .append(" stroke=\"#6a1b9a\" stroke-dasharray=\"4 3\" stroke-width=\"2\"><title>")
          .append(xml(e.kind() + (e.detail() == null ? "" : " " + e.detail())))
          .append("</title></line>");
      text(svg, x + 3, y1 + LANE - 10, 9, "bold", e.kind());
      svg.append('\n');
    }
    int axisY = TOP + lanes.size() * LANE + 4;
    for (int i = 0; i <= 5; i++) {
      long t = start + (end - start) * i / 5;
      double x = axis.x(t);
      verticalLine(svg, "tick", x, axisY, axisY + 5).append(" stroke=\"#333\"/>");
      text(
          svg,
          x - 10,
          axisY + 17,
          9,
          "normal",
          String.format(Locale.ROOT, "%.2f s", (t - start) / 1e9));
      svg.append('\n');
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  /** Wall clock minus monotonic clock, from the first record that carries both, or null. */
  static Long wallMinusMonotonic(History h) {
    for (Effect x : h.effects) {
      if (x.nanos() != null && x.at() != null) {
        return epochNanos(x.at()) - x.nanos();
      }
    }
    for (Event e : h.events) {
      if (e.nanos() != null && e.at() != null) {
        return epochNanos(e.at()) - e.nanos();
      }
    }
    for (GuardDecision d : h.guardDecisions) {
      if (d.nanos() != null && d.at() != null) {
        return epochNanos(d.at()) - d.nanos();
      }
    }
    return null;
  }

  private static Long position(Long nanos, Instant at, Long offset) {
    if (nanos != null) {
      return nanos;
    }
    if (at != null && offset != null) {
      return epochNanos(at) - offset;
    }
    return null;
  }

  private static long epochNanos(Instant at) {
    return at.getEpochSecond() * 1_000_000_000L + at.getNano();
  }

  private static void addIfPresent(List<Long> list, Long value) {
    if (value != null) {
      list.add(value);
    }
  }

  private record Axis(long start, long end) {
    double x(long t) {
      return LEFT + (double) (t - start) * (WIDTH - 10) / (end - start) + 5;
    }
  }

  /** Opens a vertical {@code <line>} of class {@code cssClass}; the caller styles and closes it. */
  private static StringBuilder verticalLine(
      StringBuilder svg, String cssClass, double x, int y1, int y2) {
    return svg.append("<line class=\"")
        .append(cssClass)
        .append("\" x1=\"")
        .append(fmt(x))
        .append("\" x2=\"")
        .append(fmt(x))
        .append("\" y1=\"")
        .append(y1)
        .append("\" y2=\"")
        .append(y2)
        .append('"');
  }

  private static void text(StringBuilder svg, double x, int y, int size, String weight, String s) {
    svg.append("<text x=\"")
        .append(fmt(x))
        .append("\" y=\"")
        .append(y)
        .append("\" font-size=\"")
        .append(size)
        .append("\" font-weight=\"")
        .append(weight)
        .append("\">")
        .append(xml(s))
        .append("</text>");
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  static String xml(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (char c : s.toCharArray()) {
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&apos;");
        default -> {
          if (c >= 0x20 || c == '\t' || c == '\n') {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }
}
