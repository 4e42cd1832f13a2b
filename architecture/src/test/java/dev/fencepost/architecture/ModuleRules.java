package dev.fencepost.architecture;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The module rules, over ArchUnit's model of compiled classes. Each returns its violations (empty
 * when the rule holds), so the same code runs against the real modules and against deliberately
 * broken fixtures. {@code module} names the module a class belongs to (null: not ours).
 */
final class ModuleRules {

  private ModuleRules() {}

  /** Dependencies of {@code module}'s classes on anything but the JDK and the module itself. */
  static List<String> dependenciesBeyondTheJdk(
      JavaClasses classes, Function<JavaClass, String> moduleOf, String module) {
    List<String> violations = new ArrayList<>();
    for (JavaClass origin : classes) {
      if (!module.equals(moduleOf.apply(origin))) {
        continue;
      }
      for (Dependency d : origin.getDirectDependenciesFromSelf()) {
        JavaClass target = d.getTargetClass().getBaseComponentType();
        if (target.isPrimitive()
            || target.getPackageName().startsWith("java.")
            || module.equals(moduleOf.apply(target))) {
          continue;
        }
        violations.add(d.getDescription());
      }
    }
    return violations;
  }

  /** Uses of a class in an {@code impl} package from a class of another module. */
  static List<String> implUsedOutsideItsModule(
      JavaClasses classes, Function<JavaClass, String> moduleOf) {
    List<String> violations = new ArrayList<>();
    for (JavaClass origin : classes) {
      String from = moduleOf.apply(origin);
      if (from == null) {
        continue;
      }
      for (Dependency d : origin.getDirectDependenciesFromSelf()) {
        JavaClass target = d.getTargetClass().getBaseComponentType();
        String to = moduleOf.apply(target);
        boolean impl = ("." + target.getPackageName() + ".").contains(".impl.");
        if (impl && to != null && !to.equals(from)) {
          violations.add(from + " -> " + to + ": " + d.getDescription());
        }
      }
    }
    return violations;
  }

  /** Which module depends on which, from the classes' dependencies. */
  static Map<String, Set<String>> moduleGraph(
      JavaClasses classes, Function<JavaClass, String> moduleOf) {
    Map<String, Set<String>> edges = new LinkedHashMap<>();
    for (JavaClass origin : classes) {
      String from = moduleOf.apply(origin);
      if (from == null) {
        continue;
      }
      edges.computeIfAbsent(from, k -> new TreeSet<>());
      for (Dependency d : origin.getDirectDependenciesFromSelf()) {
        String to = moduleOf.apply(d.getTargetClass().getBaseComponentType());
        if (to != null && !to.equals(from)) {
          edges.get(from).add(to);
        }
      }
    }
    return edges;
  }

  /** Every cycle of the module graph, as a path from a module back to itself. */
  static List<String> cycles(Map<String, Set<String>> graph) {
    List<String> cycles = new ArrayList<>();
    Set<String> done = new LinkedHashSet<>();
    for (String start : graph.keySet()) {
      walk(start, graph, new ArrayList<>(), done, cycles);
    }
    return cycles;
  }

  private static void walk(
      String node,
      Map<String, Set<String>> graph,
      List<String> path,
      Set<String> done,
      List<String> cycles) {
    int seen = path.indexOf(node);
    if (seen >= 0) {
      List<String> cycle = new ArrayList<>(path.subList(seen, path.size()));
      cycle.add(node);
      cycles.add(String.join(" -> ", cycle));
      return;
    }
    if (done.contains(node)) {
      return;
    }
    path.add(node);
    for (String next : graph.getOrDefault(node, Set.of())) {
      walk(next, graph, path, done, cycles);
    }
    path.remove(path.size() - 1);
    done.add(node);
  }

  /** Edges of {@code graph} between two of {@code modules} (which must not know one another). */
  static List<String> edgesAmong(Map<String, Set<String>> graph, Set<String> modules) {
    List<String> violations = new ArrayList<>();
    graph.forEach(
        (from, tos) -> {
          if (modules.contains(from)) {
            tos.stream()
                .filter(modules::contains)
                .forEach(to -> violations.add(from + " -> " + to));
          }
        });
    return violations;
  }

  /** Dependencies of {@code modules}' classes on classes in any of {@code packagePrefixes}. */
  static List<String> reachesFor(
      JavaClasses classes,
      Function<JavaClass, String> moduleOf,
      Set<String> modules,
      List<String> packagePrefixes) {
    List<String> violations = new ArrayList<>();
    for (JavaClass origin : classes) {
      if (!modules.contains(moduleOf.apply(origin))) {
        continue;
      }
      for (Dependency d : origin.getDirectDependenciesFromSelf()) {
        String target = d.getTargetClass().getBaseComponentType().getName();
        if (packagePrefixes.stream().anyMatch(target::startsWith)) {
          violations.add(d.getDescription());
        }
      }
    }
    return violations;
  }

  /**
   * Classes of {@code modules} whose class file needs a newer Java than {@code maxMajor} (the class
   * file's major version: 61 is Java 17), each with the version it has.
   */
  static List<String> classFilesNewerThan(
      JavaClasses classes,
      Function<JavaClass, String> moduleOf,
      Set<String> modules,
      int maxMajor) {
    List<String> violations = new ArrayList<>();
    for (JavaClass c : classes) {
      if (!modules.contains(moduleOf.apply(c)) || c.getSource().isEmpty()) {
        continue;
      }
      int major = majorVersion(c);
      if (major > maxMajor) {
        violations.add(c.getName() + " (class file version " + major + ")");
      }
    }
    return violations;
  }

  private static int majorVersion(JavaClass c) {
    try (InputStream in = c.getSource().get().getUri().toURL().openStream();
        DataInputStream data = new DataInputStream(in)) {
      data.readInt(); // 0xCAFEBABE
      data.readUnsignedShort(); // minor version
      return data.readUnsignedShort();
    } catch (IOException e) {
      throw new UncheckedIOException("reading the class file of " + c.getName(), e);
    }
  }
}
