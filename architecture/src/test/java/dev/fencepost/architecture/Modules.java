package dev.fencepost.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Which Maven module a compiled class comes from, by where its class file was loaded from. */
final class Modules {

  /** What ships: applications, libraries they run with, and the local platform. */
  static final Set<String> SHIPPED =
      Set.of(
          "lock-api",
          "db",
          "web-support",
          "launcher",
          "lock-server-app",
          "lock-spring-boot-starter",
          "payment-resource",
          "rail-stub-app",
          "rail-proxy-app",
          "batch-support",
          "payout-job",
          "reconciliation-job",
          "history-checker",
          "local-stack",
          "operator-console");

  /** The applications, each its own process: none may depend on another. */
  static final Set<String> APPLICATIONS =
      Set.of(
          "lock-server-app",
          "rail-stub-app",
          "rail-proxy-app",
          "payout-job",
          "reconciliation-job",
          "operator-console");

  // A reactor build loads a module from <dir>/target/classes or <dir>/target/<artifact>-<v>.jar;
  // a build of this module alone loads it from the local repository.
  private static final Pattern JAR = Pattern.compile("/([a-z][a-z-]*[a-z])-\\d[^/!]*\\.jar!/");
  private static final Pattern CLASSES = Pattern.compile("/([a-z][a-z-]*[a-z])/target/classes/");

  private Modules() {}

  /** The module's artifact id, or null for a class that is not one of ours. */
  static String of(JavaClass c) {
    if (!c.getName().startsWith("dev.fencepost.")) {
      return null;
    }
    String uri = c.getSource().map(s -> s.getUri().toString()).orElse("");
    Matcher jar = JAR.matcher(uri);
    if (jar.find()) {
      return jar.group(1);
    }
    Matcher classes = CLASSES.matcher(uri);
    if (classes.find()) {
      return classes.group(1).equals("lock-starter")
          ? "lock-spring-boot-starter"
          : classes.group(1);
    }
    return null;
  }
}
