package dev.fencepost.traceability;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;

/**
 * What the repository's text says about requirement IDs: where each one is cited (any text file),
 * which main sources cite it ({@code <module>/src/main/**}), and which tests are tagged with it
 * ({@code @Tag} in {@code <module>/src/test/java/**}{@code /*.java}).
 *
 * <p>Left out: hidden directories, {@code target} directories, the {@code traceability} module
 * itself (its catalogue names every ID, its tests quote IDs in fixtures) and the generated page.
 */
final class Repository {

  /** A test class, or one method of it, tagged with an ID. */
  record TestRef(String module, String path, String type, String method)
      implements Comparable<TestRef> {
    @Override
    public int compareTo(TestRef other) {
      return key().compareTo(other.key());
    }

    private String key() {
      return path + "#" + type + "#" + (method == null ? "" : method);
    }
  }

  final SortedMap<RequirementId, SortedSet<String>> citations = new TreeMap<>();
  final SortedMap<RequirementId, SortedSet<String>> implementations = new TreeMap<>();
  final SortedMap<RequirementId, SortedSet<TestRef>> tests = new TreeMap<>();
  final List<String> problems = new ArrayList<>();

  private Repository() {}

  static Repository scan(Path root) throws IOException {
    Repository repository = new Repository();
    Path realRoot = root.toRealPath();
    Files.walkFileTree(
        realRoot,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            if (dir.equals(realRoot)) {
              return FileVisitResult.CONTINUE;
            }
            String name = dir.getFileName().toString();
            boolean skip =
                name.startsWith(".")
                    || name.equals("target")
                    || name.equals("node_modules")
                    || dir.equals(realRoot.resolve(Traceability.MODULE));
            return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            String path = realRoot.relativize(file).toString().replace('\\', '/');
            if (attrs.isRegularFile() && !path.equals(Traceability.PAGE)) {
              repository.read(path, file);
            }
            return FileVisitResult.CONTINUE;
          }
        });
    return repository;
  }

  private void read(String path, Path file) throws IOException {
    String text;
    try {
      byte[] bytes = Files.readAllBytes(file);
      if (bytes.length > 8 * 1024 * 1024 || contains(bytes, (byte) 0)) {
        return;
      }
      text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException binary) {
      return;
    }
    String[] segments = path.split("/");
    String module = segments.length > 1 ? segments[0] : null;
    boolean main = segments.length > 2 && segments[1].equals("src") && segments[2].equals("main");
    boolean testJava =
        segments.length > 3
            && segments[1].equals("src")
            && segments[2].equals("test")
            && segments[3].equals("java")
            && path.endsWith(".java");
    Matcher m = RequirementId.CITED.matcher(text);
    while (m.find()) {
      RequirementId id = new RequirementId(m.group(1), Integer.parseInt(m.group(2)));
      add(citations, id, path);
      if (main) {
        add(implementations, id, path);
      }
    }
    if (testJava) {
      readTags(module, path, text);
    }
  }

  private void readTags(String module, String path, String text) {
    String fileType = path.substring(path.lastIndexOf('/') + 1, path.length() - ".java".length());
    List<JavaSource.Tagged> tagged;
    try {
      tagged = JavaSource.tags(text);
    } catch (IllegalArgumentException e) {
      problems.add(path + ": " + e.getMessage());
      return;
    }
    for (JavaSource.Tagged t : tagged) {
      RequirementId id = RequirementId.parseOrNull(t.tag());
      if (id != null) {
        String type = t.method() == null ? t.type() : fileType;
        add(tests, id, new TestRef(module, path, type, t.method()));
      }
    }
  }

  private static <T> void add(Map<RequirementId, SortedSet<T>> map, RequirementId id, T value) {
    map.computeIfAbsent(id, k -> new TreeSet<>()).add(value);
  }

  private static boolean contains(byte[] bytes, byte b) {
    for (byte x : bytes) {
      if (x == b) {
        return true;
      }
    }
    return false;
  }
}
