package dev.fencepost.traceability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The requirements page of one repository and the checks on it: the catalogue (our one-line
 * explanation of every ID), the allow-list (IDs with no tagged test, each with a reviewed reason),
 * and what {@link Repository} found in the sources.
 */
final class Traceability {

  static final String MODULE = "traceability";
  static final String PAGE = "docs/requirements.md";
  static final String CATALOGUE = MODULE + "/src/main/resources/requirements.tsv";
  static final String ALLOWED = MODULE + "/src/main/resources/untested-allowed.tsv";
  static final String COMMAND = "docs/generate-requirements.sh";

  private static final Map<String, String> SECTIONS = new LinkedHashMap<>();

  static {
    SECTIONS.put(
        "INV",
        "Invariants|What must hold always, under pauses, crashes, lost or repeated messages and"
            + " backend failover. Each is enforced by a guard and has a test that breaks it on"
            + " purpose (NFR-07).");
    SECTIONS.put(
        "UC",
        "Use cases|The situations the platform must get through, each shown end to end by at"
            + " least one test.");
    SECTIONS.put("FR", "Functional requirements|What the system does.");
    SECTIONS.put(
        "NFR",
        "Non-functional requirements|How well, and under which constraints. Latency and"
            + " throughput targets are measured by the benchmarks (docs/benchmarks.md), not"
            + " asserted by tests.");
    SECTIONS.put(
        "A",
        "Assumptions|What the design takes as given: workload figures, properties of the rail,"
            + " deliberate simplifications. They are inputs, so several have no test of their"
            + " own.");
  }

  private final Path root;
  private final SortedMap<RequirementId, String> catalogue;
  private final SortedMap<RequirementId, String> allowed;
  private final Repository repository;

  private Traceability(
      Path root,
      SortedMap<RequirementId, String> catalogue,
      SortedMap<RequirementId, String> allowed,
      Repository repository) {
    this.root = root;
    this.catalogue = catalogue;
    this.allowed = allowed;
    this.repository = repository;
  }

  static Traceability of(Path root) throws IOException {
    return new Traceability(
        root,
        Catalogue.read(root.resolve(CATALOGUE)),
        Catalogue.read(root.resolve(ALLOWED)),
        Repository.scan(root));
  }

  /** Writes the page; returns its path. */
  Path write() throws IOException {
    Path page = root.resolve(PAGE);
    Files.createDirectories(page.getParent());
    Files.writeString(page, page(), StandardCharsets.UTF_8);
    return page;
  }

  /** Everything wrong, one line each; empty when the page and the tags are in order. */
  List<String> problems() throws IOException {
    List<String> problems = new ArrayList<>();
    problems.addAll(stalePage());
    problems.addAll(citedButNotCatalogued());
    problems.addAll(untested());
    problems.addAll(allowListProblems());
    problems.addAll(repository.problems);
    return problems;
  }

  List<String> stalePage() throws IOException {
    Path page = root.resolve(PAGE);
    String current = Files.exists(page) ? Files.readString(page, StandardCharsets.UTF_8) : null;
    if (page().equals(current)) {
      return List.of();
    }
    return List.of(
        PAGE
            + (current == null ? " is missing" : " is stale")
            + ": run "
            + COMMAND
            + " and commit the result");
  }

  List<String> citedButNotCatalogued() {
    List<String> problems = new ArrayList<>();
    repository.citations.forEach(
        (id, paths) -> {
          if (!catalogue.containsKey(id)) {
            problems.add(
                id
                    + " is cited but not in "
                    + CATALOGUE
                    + " (explain it there, or correct the citation): "
                    + paths.stream().limit(5).collect(Collectors.joining(", ")));
          }
        });
    return problems;
  }

  List<String> untested() {
    List<String> problems = new ArrayList<>();
    for (RequirementId id : catalogue.keySet()) {
      if (!repository.tests.containsKey(id) && !allowed.containsKey(id)) {
        problems.add(
            id
                + " has no test tagged @Tag(\""
                + id
                + "\") and is not in "
                + ALLOWED
                + " (tag the tests that verify it, or record why it cannot be tested)");
      }
    }
    return problems;
  }

  List<String> allowListProblems() {
    List<String> problems = new ArrayList<>();
    for (RequirementId id : allowed.keySet()) {
      if (!catalogue.containsKey(id)) {
        problems.add(id + " is in " + ALLOWED + " but not in " + CATALOGUE);
      } else if (repository.tests.containsKey(id)) {
        problems.add(
            id + " has tagged tests now: remove it from " + ALLOWED + " so the page shows them");
      }
    }
    return problems;
  }

  /** The page, exactly as the generator writes it. */
  String page() {
    StringBuilder md = new StringBuilder();
    md.append("# Requirements: what each ID means, where it is met, which tests prove it\n\n");
    md.append("Generated by `")
        .append(COMMAND)
        .append("` (run it from the repository root). Do not edit by hand: `./mvnw -B verify`")
        .append(" fails while this page differs from what the generator writes.\n\n");
    md.append(
        """
        Code comments, docs and decision records cite requirement IDs: invariants (INV), use \
        cases (UC), functional (FR) and non-functional (NFR) requirements, and assumptions (A). \
        Each row below says in our own words what the ID means; **implemented in** lists every \
        file under a module's `src/main` that cites it; **verified by** lists the tests tagged \
        with it, by JUnit 5's own `@Tag("INV-02")` on the test class or method. The explanations \
        are kept in `%s`; an ID without a tagged test needs a reviewed reason in `%s`, or the \
        build fails. Decisions are indexed in [decisions/README.md](decisions/README.md).

        """
            .formatted(CATALOGUE, ALLOWED));
    long tested = catalogue.keySet().stream().filter(repository.tests::containsKey).count();
    md.append(catalogue.size())
        .append(" IDs: ")
        .append(tested)
        .append(" verified by tagged tests, ")
        .append(catalogue.size() - tested)
        .append(" without (listed at the end, each with the reason).\n");
    for (Map.Entry<String, String> section : SECTIONS.entrySet()) {
      String[] titleAndIntro = section.getValue().split("\\|", 2);
      List<RequirementId> ids =
          catalogue.keySet().stream().filter(id -> id.kind().equals(section.getKey())).toList();
      if (ids.isEmpty()) {
        continue;
      }
      md.append("\n## ")
          .append(titleAndIntro[0])
          .append(" (")
          .append(section.getKey())
          .append(")\n\n")
          .append(titleAndIntro[1])
          .append("\n\n| ID | what it means | implemented in | verified by |\n|---|---|---|---|\n");
      for (RequirementId id : ids) {
        md.append("| ")
            .append(id)
            .append(" | ")
            .append(cell(catalogue.get(id)))
            .append(" | ")
            .append(implementedIn(id))
            .append(" | ")
            .append(verifiedBy(id))
            .append(" |\n");
      }
    }
    List<RequirementId> gaps =
        catalogue.keySet().stream().filter(id -> !repository.tests.containsKey(id)).toList();
    if (!gaps.isEmpty()) {
      md.append("\n## Without a tagged test\n\n");
      for (RequirementId id : gaps) {
        String reason = allowed.get(id);
        md.append("- ")
            .append(id)
            .append(": ")
            .append(reason == null ? "**no test and no reason: the build fails**" : reason)
            .append('\n');
      }
    }
    return md.toString();
  }

  private String implementedIn(RequirementId id) {
    SortedSet<String> paths = repository.implementations.get(id);
    if (paths == null) {
      return "-";
    }
    SortedMap<String, List<String>> byModule = new TreeMap<>();
    for (String path : paths) {
      byModule
          .computeIfAbsent(path.substring(0, path.indexOf('/')), m -> new ArrayList<>())
          .add(link(displayName(path), path));
    }
    return byModule.entrySet().stream()
        .map(e -> "`" + e.getKey() + "`: " + String.join(", ", e.getValue()))
        .collect(Collectors.joining("; "));
  }

  private String verifiedBy(RequirementId id) {
    SortedSet<Repository.TestRef> refs = repository.tests.get(id);
    if (refs == null) {
      String reason = allowed.get(id);
      return reason == null ? "**none**" : "none: " + cell(reason);
    }
    SortedMap<String, SortedMap<String, TreeSet<String>>> byModule = new TreeMap<>();
    for (Repository.TestRef ref : refs) {
      TreeSet<String> methods =
          byModule
              .computeIfAbsent(ref.module(), m -> new TreeMap<>())
              .computeIfAbsent(ref.type() + "\t" + ref.path(), t -> new TreeSet<>());
      methods.add(ref.method() == null ? "" : ref.method());
    }
    List<String> modules = new ArrayList<>();
    byModule.forEach(
        (module, types) -> {
          List<String> shown = new ArrayList<>();
          types.forEach(
              (typeAndPath, methods) -> {
                String[] parts = typeAndPath.split("\t", 2);
                String text = link(parts[0], parts[1]);
                List<String> named = methods.stream().filter(s -> !s.isEmpty()).toList();
                if (!methods.contains("") && !named.isEmpty()) {
                  text += " (" + String.join(", ", named) + ")";
                }
                shown.add(text);
              });
          modules.add("`" + module + "`: " + String.join(", ", shown));
        });
    return String.join("; ", modules);
  }

  private static String displayName(String path) {
    String file = path.substring(path.lastIndexOf('/') + 1);
    if (file.equals("package-info.java")) {
      String dir = path.substring(0, path.lastIndexOf('/'));
      return dir.substring(dir.lastIndexOf('/') + 1) + " package";
    }
    return file.endsWith(".java") ? file.substring(0, file.length() - ".java".length()) : file;
  }

  /** A link from docs/ to a file of the repository. */
  private static String link(String text, String path) {
    return "[" + text + "](../" + path + ")";
  }

  private static String cell(String text) {
    return text.replace("|", "\\|");
  }
}
