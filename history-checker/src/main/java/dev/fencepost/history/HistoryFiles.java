package dev.fencepost.history;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads and writes a run directory: {@code <type>.jsonl} per record type ({@link Records#TYPES}),
 * one JSON object per line, UTF-8. A missing file is an empty list; a blank line is skipped; any
 * other unreadable line fails the whole read, naming the file and line.
 */
public final class HistoryFiles {

  static final JsonMapper JSON =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .changeDefaultPropertyInclusion(
              incl -> incl.withValueInclusion(JsonInclude.Include.NON_NULL))
          .build();

  private HistoryFiles() {}

  /** The file that holds records of {@code type} in {@code runDir}. */
  public static Path fileFor(Path runDir, Class<?> type) {
    String name = Records.TYPES.get(type);
    if (name == null) {
      throw new IllegalArgumentException("not a history record: " + type.getName());
    }
    return runDir.resolve(name + ".jsonl");
  }

  /** Reads every record file of {@code runDir}. */
  public static History read(Path runDir) {
    if (!Files.isDirectory(runDir)) {
      throw new HistoryFormatException("run directory " + runDir + " does not exist", null);
    }
    History history = new History();
    for (Map.Entry<Class<?>, String> type : Records.TYPES.entrySet()) {
      for (Path file : filesOf(runDir, type.getValue())) {
        readFile(file, type, history);
      }
    }
    return history;
  }

  /**
   * {@code <type>.jsonl} and {@code <type>.<writer>.jsonl} (one file per writing process, so that
   * processes never share a file), in name order.
   */
  static List<Path> filesOf(Path runDir, String type) {
    try (Stream<Path> files = Files.list(runDir)) {
      return files
          .filter(
              f -> {
                String name = f.getFileName().toString();
                return name.equals(type + ".jsonl")
                    || (name.startsWith(type + ".") && name.endsWith(".jsonl"));
              })
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new HistoryFormatException(runDir + ": cannot be listed: " + e.getMessage(), e);
    }
  }

  private static void readFile(Path file, Map.Entry<Class<?>, String> type, History history) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new HistoryFormatException(file + ": cannot be read: " + e.getMessage(), e);
    }
    boolean terminated = text.isEmpty() || text.endsWith("\n");
    String[] lines = text.split("\n", -1);
    List<Object> target = history.listFor(type.getKey());
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      if (line.isBlank()) {
        continue;
      }
      try {
        target.add(JSON.readValue(line, type.getKey()));
      } catch (JacksonException e) {
        if (!terminated && i == lines.length - 1) {
          // A writer killed mid-line (SIGKILL is a scenario, not an accident): the unterminated
          // last line is dropped and counted, never guessed at.
          history.tornLines.add(file.getFileName() + ":" + (i + 1));
          continue;
        }
        throw new HistoryFormatException(
            file
                + ":"
                + (i + 1)
                + ": not a valid "
                + type.getValue()
                + " record: "
                + rootMessage(e),
            e);
      }
    }
  }

  /** Appends {@code records} (of any record types) to their files in {@code runDir}. */
  public static void append(Path runDir, List<?> records) {
    try {
      Files.createDirectories(runDir);
      for (Object record : records) {
        Path file = fileFor(runDir, record.getClass());
        try (BufferedWriter out =
            Files.newBufferedWriter(
                file,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND)) {
          out.write(toLine(record));
          out.write('\n');
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes every list of {@code history} to {@code runDir}, replacing the files it has. */
  public static void write(Path runDir, History history) {
    try {
      Files.createDirectories(runDir);
      for (Class<?> type : Records.TYPES.keySet()) {
        List<Object> list = history.listFor(type);
        if (list.isEmpty()) {
          continue;
        }
        StringBuilder text = new StringBuilder();
        for (Object record : list) {
          text.append(toLine(record)).append('\n');
        }
        Files.writeString(fileFor(runDir, type), text, StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One record as one JSON line (no line break inside). */
  public static String toLine(Object record) {
    return JSON.writeValueAsString(record);
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String message = t instanceof JacksonException j ? j.getOriginalMessage() : t.getMessage();
    return message == null ? t.getClass().getSimpleName() : message;
  }
}
