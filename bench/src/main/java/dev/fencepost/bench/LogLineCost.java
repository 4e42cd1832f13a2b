package dev.fencepost.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.slf4j.event.KeyValuePair;
import org.springframework.boot.logging.logback.StructuredLogEncoder;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The CPU cost of one structured log line as the services write it, with JMH: the worker's {@code
 * payout.transition} event (nine key-value pairs, about 500 bytes of JSON), through Spring Boot's
 * {@code StructuredLogEncoder} in the format the services ship ({@code ecs}, {@code
 * logging.structured.format.console}) and, for comparison, in Spring Boot's flat {@code logstash}
 * format.
 *
 * <ul>
 *   <li>{@code encode}: the encoder alone, one event to its bytes;
 *   <li>{@code logLine}: the whole call a service makes, {@code log.atInfo().addKeyValue(...)
 *       .log()}, through a Logback context with one appender that encodes and writes to a stream
 *       that discards the bytes (so the console's own write, a system call, is not in it).
 * </ul>
 *
 * One thread, one fork, 3 warm-up and 5 measured iterations of 2 s, nanoseconds per line. A payout
 * writes about 12 such lines over its four processes. Run it alone on a quiet machine:
 *
 * <pre>
 * ./mvnw -B -q -pl bench -am -DskipTests package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.fencepost.bench.LogLineCost
 * </pre>
 *
 * <p>JMH's options follow the class name; {@code -prof gc} adds the bytes allocated per line.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class LogLineCost {

  @Param({"ecs", "logstash"})
  public String format;

  private StructuredLogEncoder encoder;
  private ILoggingEvent event;
  private Logger logger;
  private long token;

  public static void main(String[] args) throws Exception {
    Provenance.runJmh(LogLineCost.class, args);
  }

  @Setup
  public void setUp() {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    // What Spring Boot's logging system puts in the context before the encoder starts: the
    // Environment its formatters read the service's name, version and pid from.
    StandardEnvironment environment = new StandardEnvironment();
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "service",
                Map.of(
                    "spring.application.name", "payout-job",
                    "spring.application.version", "0.1.0-SNAPSHOT",
                    "spring.application.pid", ProcessHandle.current().pid())));
    context.putObject(Environment.class.getName(), environment);
    encoder = new StructuredLogEncoder();
    encoder.setContext(context);
    encoder.setFormat(format);
    encoder.setCharset(StandardCharsets.UTF_8);
    encoder.start();

    OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
    appender.setContext(context);
    appender.setName("discard");
    appender.setEncoder(encoder);
    appender.setOutputStream(OutputStream.nullOutputStream());
    appender.start();
    logger = context.getLogger("dev.fencepost.payment.impl.PaymentSignals");
    logger.setLevel(Level.INFO);
    logger.setAdditive(false);
    logger.addAppender(appender);

    LoggingEvent transition =
        new LoggingEvent(Logger.FQCN, logger, Level.INFO, "payout transition", null, new Object[0]);
    transition.setThreadName("payout-4");
    pairs(transition, 64651L);
    event = transition;
    String line = new String(encoder.encode(event), StandardCharsets.UTF_8);
    if (!line.contains("\"payout.transition\"") || !line.contains("64651")) {
      throw new IllegalStateException("the encoder did not write the event: " + line);
    }
  }

  @Benchmark
  public byte[] encode() {
    return encoder.encode(event);
  }

  @Benchmark
  public void logLine() {
    long t = ++token;
    logger
        .atInfo()
        .setMessage("payout transition")
        .addKeyValue("event", "payout.transition")
        .addKeyValue("payoutId", "55f16c72-c1fb-4314-ade1-2b09ab6ec786")
        .addKeyValue("accountId", "acc-03545")
        .addKeyValue("token", t)
        .addKeyValue("from", "PENDING")
        .addKeyValue("to", "CLAIMED")
        .addKeyValue("payoutEvent", "CLAIM")
        .addKeyValue("actor", "worker-1-0")
        .addKeyValue("role", "WORKER")
        .log();
  }

  /** The pairs PaymentSignals writes for a claim, as a line in a worker's log carries them. */
  private static void pairs(LoggingEvent event, long token) {
    event.addKeyValuePair(new KeyValuePair("event", "payout.transition"));
    event.addKeyValuePair(new KeyValuePair("payoutId", "55f16c72-c1fb-4314-ade1-2b09ab6ec786"));
    event.addKeyValuePair(new KeyValuePair("accountId", "acc-03545"));
    event.addKeyValuePair(new KeyValuePair("token", token));
    event.addKeyValuePair(new KeyValuePair("from", "PENDING"));
    event.addKeyValuePair(new KeyValuePair("to", "CLAIMED"));
    event.addKeyValuePair(new KeyValuePair("payoutEvent", "CLAIM"));
    event.addKeyValuePair(new KeyValuePair("actor", "worker-1-0"));
    event.addKeyValuePair(new KeyValuePair("role", "WORKER"));
  }
}
