package dev.fencepost.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Recursive copy and delete of the directories the launcher's servers keep their data in: a
 * server's files live as long as the server, so that neither a test suite nor a benchmark leaves
 * them behind on the machine's disk.
 */
public final class DataDirectories {

  private DataDirectories() {}

  /** Copies {@code source} and everything under it into {@code target}. */
  public static void copy(Path source, Path target) {
    try (Stream<Path> paths = Files.walk(source)) {
      for (Path path : (Iterable<Path>) paths::iterator) {
        Path destination = target.resolve(source.relativize(path).toString());
        if (Files.isDirectory(path)) {
          Files.createDirectories(destination);
        } else {
          Files.copy(path, destination, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not copy " + source + " to " + target, e);
    }
  }

  /** Deletes {@code directory} (or a file) and everything under it; nothing if it is absent. */
  public static void delete(Path directory) {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete " + directory, e);
    }
  }
}
