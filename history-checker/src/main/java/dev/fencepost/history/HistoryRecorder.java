package dev.fencepost.history;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * What a scenario's harness or an instrumented worker uses to write its part of a run: one file per
 * record type and writer ({@code <type>.<writer>.jsonl}), so that no two processes share a file;
 * every record is one line, flushed before {@link #record} returns, so a SIGKILL loses at most the
 * line being written (which the reader drops and counts as torn). Thread-safe.
 *
 * <p>Nothing here is required: any process may write the same lines with its own JSON code.
 */
public final class HistoryRecorder implements AutoCloseable {

  private final Path runDir;
  private final String writer;
  private final Map<Class<?>, BufferedWriter> files = new HashMap<>();

  private HistoryRecorder(Path runDir, String writer) {
    this.runDir = runDir;
    this.writer = writer;
  }

  /** A recorder for {@code writer} (a worker id, "harness", ...: [A-Za-z0-9_-]+). */
  public static HistoryRecorder open(Path runDir, String writer) {
    if (!writer.matches("[A-Za-z0-9_-]+")) {
      throw new IllegalArgumentException("writer must match [A-Za-z0-9_-]+: " + writer);
    }
    try {
      Files.createDirectories(runDir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new HistoryRecorder(runDir, writer);
  }

  /** The host's monotonic clock, the one every {@code nanos} field of a run is read from. */
  public static long nanoTime() {
    return System.nanoTime();
  }

  /** Appends one record (of any record type) and flushes it. */
  public synchronized void record(Object record) {
    String name = Records.TYPES.get(record.getClass());
    if (name == null) {
      throw new IllegalArgumentException("not a history record: " + record.getClass().getName());
    }
    try {
      BufferedWriter out = files.get(record.getClass());
      if (out == null) {
        out =
            Files.newBufferedWriter(
                runDir.resolve(name + "." + writer + ".jsonl"),
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        files.put(record.getClass(), out);
      }
      out.write(HistoryFiles.toLine(record) + "\n");
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void close() {
    IOException failure = null;
    for (BufferedWriter out : files.values()) {
      try {
        out.close();
      } catch (IOException e) {
        failure = e;
      }
    }
    files.clear();
    if (failure != null) {
      throw new UncheckedIOException(failure);
    }
  }
}
