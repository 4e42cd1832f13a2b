package dev.fencepost.testsupport.logging;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;
import org.slf4j.event.KeyValuePair;

/**
 * Captures structured log events (SLF4J key-value pairs) so tests can assert on the stable {@code
 * event} name and its fields, exactly as an alert would filter on them (NFR-08). Register as an
 * instance field:
 *
 * <pre>{@code
 * @RegisterExtension CapturedEvents events = new CapturedEvents();
 * ...
 * assertThat(events.named("lock.revoked")).singleElement().extracting(e -> e.get("operator"))...
 * }</pre>
 */
public final class CapturedEvents implements BeforeEachCallback, AfterEachCallback {

  private final List<Map<String, Object>> captured = new CopyOnWriteArrayList<>();
  private final AppenderBase<ILoggingEvent> appender =
      new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
          List<KeyValuePair> pairs = event.getKeyValuePairs();
          if (pairs == null || pairs.isEmpty()) {
            return;
          }
          Map<String, Object> fields = new LinkedHashMap<>();
          for (KeyValuePair pair : pairs) {
            fields.put(pair.key, pair.value);
          }
          fields.put("level", event.getLevel().toString());
          fields.put("message", event.getFormattedMessage());
          captured.add(fields);
        }
      };

  @Override
  public void beforeEach(ExtensionContext context) {
    start();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    stop();
  }

  /** Starts capturing; for use outside JUnit's lifecycle. */
  public void start() {
    captured.clear();
    appender.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
    appender.start();
    rootLogger().addAppender(appender);
  }

  /** Stops capturing. */
  public void stop() {
    rootLogger().detachAppender(appender);
    appender.stop();
  }

  /** Every captured event with {@code event=name}, in order. */
  public List<Map<String, Object>> named(String name) {
    List<Map<String, Object>> result = new ArrayList<>();
    for (Map<String, Object> fields : captured) {
      if (name.equals(fields.get("event"))) {
        result.add(fields);
      }
    }
    return result;
  }

  /** Every captured structured event, in order. */
  public List<Map<String, Object>> all() {
    return List.copyOf(captured);
  }

  private static Logger rootLogger() {
    return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }
}
