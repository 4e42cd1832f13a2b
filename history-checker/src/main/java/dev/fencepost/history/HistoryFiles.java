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
      Path file = fileFor(runDir, type.getKey());
      if (!Files.exists(file)) {
        continue;
      }
      List<String> lines;
      try {
        lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new HistoryFormatException(file + ": cannot be read: " + e.getMessage(), e);
      }
      List<Object> target = history.listFor(type.getKey());
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.isBlank()) {
          continue;
        }
        try {
          target.add(JSON.readValue(line, type.getKey()));
        } catch (JacksonException e) {
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
    return history;
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
