package dev.fencepost.console;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import org.springframework.stereotype.Component;

/** How the pages print times, ages and amounts ({@code ${@format.age(...)}} in a template). */
@Component("format")
public class Format {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

  public String time(Instant at) {
    return at == null ? "-" : TIME.format(at.truncatedTo(ChronoUnit.SECONDS));
  }

  /** A batch time (the job repository's local date-times are UTC on the platform). */
  public String time(java.time.LocalDateTime at) {
    return at == null ? "-" : time(at.toInstant(ZoneOffset.UTC));
  }

  public String age(Duration age) {
    if (age == null) {
      return "-";
    }
    long s = Math.max(0, age.toSeconds());
    if (s < 120) {
      return s + " s";
    }
    if (s < 7200) {
      return (s / 60) + " min";
    }
    if (s < 172_800) {
      return (s / 3600) + " h " + ((s % 3600) / 60) + " min";
    }
    return (s / 86_400) + " days";
  }

  public String since(Instant at) {
    return at == null ? "-" : age(Duration.between(at, Instant.now()));
  }

  public String money(long minor, String currency) {
    return String.format("%d.%02d %s", minor / 100, Math.abs(minor % 100), currency);
  }
}
