package dev.fencepost.lock.client.testing;

import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Closes what a test opened, last first. Register it as a {@code @RegisterExtension} field and it
 * closes after each test; elsewhere, call {@link #close()}.
 */
public final class Closer implements AutoCloseable, AfterEachCallback {

  private final Deque<AutoCloseable> opened = new ArrayDeque<>();

  public <T extends AutoCloseable> T register(T resource) {
    opened.push(resource);
    return resource;
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    close();
  }

  @Override
  public void close() throws Exception {
    Exception first = null;
    while (!opened.isEmpty()) {
      try {
        opened.pop().close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
