package dev.fencepost.console;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Payouts posted per minute as an SVG bar chart, drawn on the server: no script, and a text
 * alternative (its title and description) for whoever cannot see it. Only numbers and times go into
 * it, never text from a request.
 */
final class PostedChart {

  private static final DateTimeFormatter HOUR =
      DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);
  private static final int WIDTH = 900;
  private static final int HEIGHT = 180;
  private static final int LEFT = 40;
  private static final int BOTTOM = 24;

  private PostedChart() {}

  static String svg(List<ConsoleReads.Minute> minutes) {
    long max = Math.max(1, minutes.stream().mapToLong(ConsoleReads.Minute::posted).max().orElse(1));
    long total = minutes.stream().mapToLong(ConsoleReads.Minute::posted).sum();
    double bar = (double) (WIDTH - LEFT) / Math.max(1, minutes.size());
    StringBuilder svg = new StringBuilder();
    svg.append(
            String.format(
                "<svg class=\"chart\" role=\"img\" aria-labelledby=\"chart-title chart-desc\""
                    + " viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">",
                WIDTH, HEIGHT))
        .append("<title id=\"chart-title\">Payouts posted per minute</title>")
        .append(
            String.format(
                "<desc id=\"chart-desc\">%d payouts posted in the %d minutes shown; at most %d in"
                    + " one minute.</desc>",
                total, minutes.size(), max));
    int plot = HEIGHT - BOTTOM - 8;
    svg.append(
        String.format(
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>",
            LEFT, HEIGHT - BOTTOM, WIDTH, HEIGHT - BOTTOM));
    svg.append(String.format("<text x=\"2\" y=\"14\" class=\"label\">%d</text>", max));
    svg.append(String.format("<text x=\"2\" y=\"%d\" class=\"label\">0</text>", HEIGHT - BOTTOM));
    for (int i = 0; i < minutes.size(); i++) {
      ConsoleReads.Minute m = minutes.get(i);
      double x = LEFT + i * bar;
      if (m.posted() > 0) {
        double h = (double) m.posted() / max * plot;
        svg.append(
            String.format(
                java.util.Locale.ROOT,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"bar\"/>",
                x,
                HEIGHT - BOTTOM - h,
                Math.max(1, bar - 1),
                h));
      }
      if (m.minute().atZone(ZoneOffset.UTC).getMinute() % 30 == 0) {
        svg.append(
            String.format(
                java.util.Locale.ROOT,
                "<text x=\"%.1f\" y=\"%d\" class=\"label\">%s</text>",
                x,
                HEIGHT - 6,
                HOUR.format(m.minute())));
      }
    }
    return svg.append("</svg>").toString();
  }
}
