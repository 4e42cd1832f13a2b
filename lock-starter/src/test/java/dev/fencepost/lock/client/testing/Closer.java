package dev.fencepost.lock.client.testing;

import java.util.ArrayDeque;
import java.util.Deque;

/** Closes what a test opened, last first; register it as a field and call close() after each. */
public final class Closer implements AutoCloseable {

  private final Deque<AutoCloseable> opened = new ArrayDeque<>();

  public <T extends AutoCloseable> T register(T resource) {
    opened.push(resource);
    return resource;
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
