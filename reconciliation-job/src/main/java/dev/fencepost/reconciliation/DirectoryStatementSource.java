package dev.fencepost.reconciliation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Statements as files in a directory (ADR 0176): what a bank's SFTP drop becomes once it is mounted
 * ({@code fencepost.reconciliation.statement-directory}). Every regular {@code *.xml} file in the
 * directory (not its subdirectories, no symbolic link followed) is a camt.053.001.08 document; the
 * entries booked in the window are taken from all of them, one entry per entry reference however
 * many files repeat it (a bank re-sends a statement), ordered by booking time and reference, and
 * handed out in pages. A file larger than {@value #MAX_FILE_BYTES} bytes, or one that is not a
 * camt.053.001.08, fails the run rather than be skipped: a statement the reconciler could not read
 * is not a statement that shows nothing.
 */
public final class DirectoryStatementSource implements StatementSource {

  /** The largest statement file read (64 MiB): a bound on what one file can cost the heap. */
  public static final long MAX_FILE_BYTES = 64L * 1024 * 1024;

  private final Path directory;
  private final int pageSize;

  public DirectoryStatementSource(Path directory, int pageSize) {
    if (pageSize < 1 || pageSize > 1000) {
      throw new IllegalArgumentException("statement page size must be 1..1000, got " + pageSize);
    }
    this.directory = directory;
    this.pageSize = pageSize;
  }

  @Override
  public StatementPage read(ReconciliationWindow window, int page) {
    Map<String, StatementEntry> byReference = new LinkedHashMap<>();
    for (Path file : files()) {
      for (StatementEntry entry : Camt053.read(text(file), "statement file " + file).entries()) {
        if (window.contains(entry.bookedAt())) {
          byReference.putIfAbsent(entry.entryReference(), entry);
        }
      }
    }
    List<StatementEntry> all = new ArrayList<>(byReference.values());
    all.sort(
        Comparator.comparing(StatementEntry::bookedAt)
            .thenComparing(StatementEntry::entryReference));
    int from = Math.min(all.size(), (page - 1) * pageSize);
    int to = Math.min(all.size(), from + pageSize);
    return new StatementPage(all.subList(from, to), to >= all.size());
  }

  @Override
  public String name() {
    return "directory";
  }

  private List<Path> files() {
    if (!Files.isDirectory(directory)) {
      throw new SourceUnavailableException("statement directory " + directory + " does not exist");
    }
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory, "*.xml")) {
      for (Path file : stream) {
        if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
          files.add(file);
        }
      }
    } catch (IOException e) {
      throw new SourceUnavailableException("statement directory " + directory + ": " + e, e);
    }
    files.sort(Comparator.naturalOrder());
    return files;
  }

  private static String text(Path file) {
    try {
      long size = Files.size(file);
      if (size > MAX_FILE_BYTES) {
        throw new SourceUnavailableException(
            "statement file " + file + " has " + size + " bytes, more than " + MAX_FILE_BYTES);
      }
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new SourceUnavailableException("statement file " + file + ": " + e, e);
    }
  }
}
