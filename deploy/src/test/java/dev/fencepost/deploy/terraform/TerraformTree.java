package dev.fencepost.deploy.terraform;

import com.bertramlabs.plugins.hcl4j.HCLParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Every {@code .tf} file under a root, parsed by hcl4j and merged per directory (a Terraform module
 * is a directory). hcl4j evaluates what it parses: it resolves {@code local.*} against the file's
 * locals and {@code var.*} against a map of variables it is given, and drops what it cannot. {@link
 * MarkingParser} gives it a map that answers every {@code var.NAME} with the text {@code
 * "var.NAME"}, so a reference to a variable stays visible in the tree (also inside an interpolated
 * string) and {@link Module#resolve} can follow it to the variable's default.
 */
final class TerraformTree {

  private final Path root;
  private final Map<String, Module> modules;
  private final Map<Path, Exception> parseFailures;

  private TerraformTree(Path root, Map<String, Module> modules, Map<Path, Exception> failures) {
    this.root = root;
    this.modules = modules;
    this.parseFailures = failures;
  }

  static TerraformTree load(Path root) {
    Map<String, Module> modules = new TreeMap<>();
    Map<Path, Exception> failures = new LinkedHashMap<>();
    for (Path file : tfFiles(root)) {
      String dir = root.relativize(file.getParent()).toString().replace('\\', '/');
      Module module = modules.computeIfAbsent(dir, Module::new);
      try {
        module.merge(file.getFileName().toString(), parse(file));
      } catch (Exception e) {
        failures.put(root.relativize(file), e);
      }
    }
    return new TerraformTree(root, modules, failures);
  }

  static List<Path> tfFiles(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> p.getFileName().toString().endsWith(".tf"))
          .filter(p -> root.relativize(p).toString().indexOf(".terraform") < 0)
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Map<String, Object> parse(Path file) throws Exception {
    return new MarkingParser().parse(Files.readString(file, StandardCharsets.UTF_8));
  }

  Path root() {
    return root;
  }

  Map<String, Module> modules() {
    return modules;
  }

  Optional<Module> module(String dir) {
    return Optional.ofNullable(modules.get(dir));
  }

  Map<Path, Exception> parseFailures() {
    return parseFailures;
  }

  /** One directory's blocks, merged over its files. */
  static final class Module {
    private final String dir;
    private final List<String> files = new ArrayList<>();
    private final Map<String, Map<String, Map<String, Object>>> resources = new TreeMap<>();
    private final Map<String, Map<String, Object>> moduleCalls = new TreeMap<>();
    private final Map<String, Map<String, Object>> variables = new TreeMap<>();
    private final Map<String, Map<String, Object>> outputs = new TreeMap<>();
    private final Map<String, Object> locals = new LinkedHashMap<>();
    private final List<Map<String, Object>> terraformBlocks = new ArrayList<>();

    Module(String dir) {
      this.dir = dir;
    }

    @SuppressWarnings("unchecked")
    void merge(String file, Map<String, Object> parsed) {
      files.add(file);
      for (var top : parsed.entrySet()) {
        switch (top.getKey()) {
          case "resource" ->
              Hcl.map(top.getValue())
                  .forEach(
                      (type, named) ->
                          Hcl.map(named)
                              .forEach(
                                  (name, body) ->
                                      resources
                                          .computeIfAbsent(type, t -> new TreeMap<>())
                                          .put(name, Hcl.map(body))));
          case "module" ->
              Hcl.map(top.getValue()).forEach((n, b) -> moduleCalls.put(n, Hcl.map(b)));
          case "variable" ->
              Hcl.map(top.getValue()).forEach((n, b) -> variables.put(n, Hcl.map(b)));
          case "output" -> Hcl.map(top.getValue()).forEach((n, b) -> outputs.put(n, Hcl.map(b)));
          case "locals" -> locals.putAll(Hcl.map(top.getValue()));
          case "terraform" -> Hcl.blocks(top.getValue()).forEach(terraformBlocks::add);
          default -> {
            // data sources, providers: nothing checked reads them
          }
        }
      }
    }

    String dir() {
      return dir;
    }

    List<String> files() {
      return files;
    }

    Map<String, Map<String, Map<String, Object>>> resources() {
      return resources;
    }

    /** The resources of one type, by name (empty if none). */
    Map<String, Map<String, Object>> resources(String type) {
      return resources.getOrDefault(type, Map.of());
    }

    Map<String, Map<String, Object>> moduleCalls() {
      return moduleCalls;
    }

    Map<String, Map<String, Object>> variables() {
      return variables;
    }

    Map<String, Map<String, Object>> outputs() {
      return outputs;
    }

    Map<String, Object> locals() {
      return locals;
    }

    List<Map<String, Object>> terraformBlocks() {
      return terraformBlocks;
    }

    /**
     * The value itself, or, for a bare {@code var.NAME}, that variable's default (null without
     * one): what the module does when its caller does not say otherwise.
     */
    Object resolve(Object value) {
      if (value instanceof String s && s.startsWith("var.") && s.indexOf(' ') < 0) {
        Map<String, Object> variable = variables.get(s.substring(4));
        return variable == null ? null : variable.get("default");
      }
      return value;
    }
  }

  /** hcl4j with every {@code var.NAME} kept as the text {@code "var.NAME"}. */
  static final class MarkingParser extends HCLParser {
    MarkingParser() {
      variables = new VariableMarkers();
    }
  }

  private static final class VariableMarkers extends HashMap<String, Object> {
    @Override
    public Object get(Object key) {
      return "var." + key;
    }

    @Override
    public boolean containsKey(Object key) {
      return true;
    }
  }
}
