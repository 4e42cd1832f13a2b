package dev.fencepost.ops;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** Where the rules and the runbooks are, and the rule file read as data. */
final class Repository {

  static final Path ROOT = findRoot();
  static final Path RULES = ROOT.resolve("ops/prometheus/fencepost-rules.yaml");
  static final Path RULE_TESTS = ROOT.resolve("ops/prometheus/tests");
  static final Path RUNBOOKS = ROOT.resolve("runbooks");

  private Repository() {}

  /** One alerting rule as the file declares it. */
  record Alert(String name, Map<String, String> labels, Map<String, String> annotations) {}

  /** Surefire runs in the module's directory; the repository root is the one with mvnw. */
  private static Path findRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("ops"))) {
        return dir;
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException(
        "no repository root (a directory with mvnw and ops/) above here");
  }

  static Object yaml(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }

  /** Every alerting rule of a Prometheus rule file, in file order. */
  @SuppressWarnings("unchecked")
  static List<Alert> alerts(Path rulesFile) {
    Map<String, Object> root = (Map<String, Object>) yaml(rulesFile);
    List<Alert> alerts = new ArrayList<>();
    for (Map<String, Object> group : (List<Map<String, Object>>) root.get("groups")) {
      for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
        if (rule.containsKey("alert")) {
          alerts.add(
              new Alert(
                  (String) rule.get("alert"),
                  strings((Map<String, Object>) rule.get("labels")),
                  strings((Map<String, Object>) rule.get("annotations"))));
        }
      }
    }
    return alerts;
  }

  private static Map<String, String> strings(Map<String, Object> map) {
    Map<String, String> out = new LinkedHashMap<>();
    if (map != null) {
      map.forEach((k, v) -> out.put(k, v == null ? null : String.valueOf(v)));
    }
    return out;
  }
}
