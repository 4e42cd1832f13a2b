package dev.fencepost.traceability;

import java.nio.file.Path;
import java.util.List;

/**
 * Writes docs/requirements.md for the repository at {@code args[0]} (default: the working
 * directory), then prints what the build's check would still refuse. Run through
 * docs/generate-requirements.sh.
 */
public final class RequirementsPage {

  private RequirementsPage() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
    Traceability traceability = Traceability.of(root);
    Path page = traceability.write();
    System.out.println("wrote " + root.relativize(page));
    List<String> problems = traceability.problems();
    if (!problems.isEmpty()) {
      System.err.println("The build's traceability check will still fail:");
      problems.forEach(p -> System.err.println("  " + p));
      System.exit(1);
    }
  }
}
