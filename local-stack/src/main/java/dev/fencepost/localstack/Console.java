package dev.fencepost.localstack;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * What a person sees of a local run: a short banner, one progress bar per phase, the summary. Every
 * log (this program's own, the services', the workers', reconciliation's) goes to a file in the
 * run's directory, whose path is printed. {@code --verbose} follows those files on the console
 * instead of drawing bars; so does a console that is not a terminal (CI, a pipe), which gets one
 * line per finished phase rather than bars it cannot redraw.
 */
final class Console implements AutoCloseable {

  private final PrintStream out;
  private final Path runDir;
  private final boolean verbose;
  private final boolean bars;
  private Thread follower;

  Console(PrintStream out, Path runDir, boolean verbose, boolean terminal) {
    this.out = out;
    this.runDir = runDir;
    this.verbose = verbose;
    this.bars = terminal && !verbose;
    routeLogsTo(runDir.resolve("fencepost-run.log"));
    if (verbose) {
      follower = new Thread(this::follow, "log-follower");
      follower.setDaemon(true);
      follower.start();
    }
  }

  /**
   * This JVM's logs (embedded PostgreSQL, Liquibase, etcd's client, ...) go to {@code file} only;
   * java.util.logging (Liquibase, jline) is routed there through SLF4J.
   */
  static void routeLogsTo(Path file) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n");
    encoder.start();
    FileAppender<ILoggingEvent> appender = new FileAppender<>();
    appender.setContext(context);
    appender.setName("run-log");
    appender.setFile(file.toString());
    appender.setEncoder(encoder);
    appender.start();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(appender);
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install();
  }

  void line(String text) {
    out.println(text);
  }

  /** A phase of {@code max} steps; close it when the phase is over. */
  Phase phase(String name, long max, String unit) {
    return bars ? new BarPhase(name, max, unit) : new LinePhase(name, max, unit);
  }

  /** Progress of one phase. */
  interface Phase extends AutoCloseable {
    void stepTo(long done);

    void note(String text);

    @Override
    void close();
  }

  private final class BarPhase implements Phase {
    private final ProgressBar bar;

    BarPhase(String name, long max, String unit) {
      bar =
          new ProgressBarBuilder()
              .setTaskName(String.format("%-11s", name))
              .setInitialMax(max)
              .setStyle(ProgressBarStyle.ASCII)
              .setUnit(" " + unit, 1)
              .setUpdateIntervalMillis(250)
              .hideEta()
              .setConsumer(new ConsoleProgressBarConsumer(out))
              .build();
    }

    @Override
    public void stepTo(long done) {
      bar.stepTo(done);
    }

    @Override
    public void note(String text) {
      bar.setExtraMessage(" " + text);
    }

    @Override
    public void close() {
      bar.close();
    }
  }

  private final class LinePhase implements Phase {
    private final String name;
    private final long max;
    private final String unit;
    private final long started = System.nanoTime();
    private long done;
    private String note = "";

    LinePhase(String name, long max, String unit) {
      this.name = name;
      this.max = max;
      this.unit = unit;
      if (verbose) {
        out.printf("== %s%n", name);
      }
    }

    @Override
    public void stepTo(long done) {
      this.done = done;
    }

    @Override
    public void note(String text) {
      this.note = text;
    }

    @Override
    public void close() {
      out.printf(
          "%-11s %d/%d %s in %.1f s%s%n",
          name,
          done,
          max,
          unit,
          (System.nanoTime() - started) / 1e9,
          note.isEmpty() ? "" : " (" + note + ")");
    }
  }

  /** Prints every new line of every log in the run's directory, prefixed with the log's name. */
  private void follow() {
    Map<Path, Long> read = new HashMap<>();
    try {
      while (!Thread.currentThread().isInterrupted()) {
        List<Path> logs;
        try (Stream<Path> files = Files.list(runDir)) {
          logs = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
        }
        for (Path log : logs) {
          read.put(log, printFrom(log, read.getOrDefault(log, 0L)));
        }
        Thread.sleep(200);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      out.println("(stopped following the logs: " + e.getMessage() + ")");
    }
  }

  private long printFrom(Path log, long position) throws IOException {
    try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
      if (file.length() <= position) {
        return position;
      }
      file.seek(position);
      byte[] bytes = new byte[(int) Math.min(file.length() - position, 1 << 20)];
      file.readFully(bytes);
      String text = new String(bytes, StandardCharsets.UTF_8);
      int end = text.lastIndexOf('\n');
      if (end < 0) {
        return position;
      }
      String name = log.getFileName().toString().replace(".log", "");
      text.substring(0, end).lines().forEach(line -> out.println("[" + name + "] " + line));
      return position + text.substring(0, end + 1).getBytes(StandardCharsets.UTF_8).length;
    }
  }

  @Override
  public void close() {
    if (follower != null) {
      follower.interrupt();
    }
  }
}
