package dev.fencepost.deploy.helm;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The chart under {@code ../helm/fencepost}, rendered by a real Helm (helm-java's Go library).
 *
 * <p>Helm's template action leaves hook objects out of its output, and the migrations are hooks. So
 * rendering uses a copy of the chart whose only difference is the hook annotation's name ({@value
 * #HOOK} becomes {@value #TEST_HOOK}): the hook Jobs then render like any object and still say
 * which hook they are. Lint runs on the chart itself.
 */
final class HelmChart {

  static final String RELEASE = "fencepost";
  static final String NAMESPACE = "payouts";

  /** The Kubernetes version rendered for: GKE's, ADR 0173. */
  static final String KUBE_VERSION = "1.34.0";

  static final String HOOK = "helm.sh/hook";
  static final String TEST_HOOK = "test.fencepost.dev/hook";

  private static final Map<Variant, String> RENDERED = new ConcurrentHashMap<>();
  private static volatile Path renderable;

  private HelmChart() {}

  static Path chartDir() {
    return Paths.get("..", "helm", "fencepost").toAbsolutePath().normalize();
  }

  static Path examplesDir() {
    return Paths.get("..", "helm", "examples").toAbsolutePath().normalize();
  }

  static LintResult lintStrict() {
    return new Helm(chartDir()).lint().strict().call();
  }

  /** The variant rendered once per test JVM (each render costs a second or two). */
  static String render(Variant variant) {
    return RENDERED.computeIfAbsent(variant, v -> render(v, Map.of()));
  }

  /**
   * Renders {@code variant} with {@code sets} as {@code --set key=value}; throws what Helm says.
   */
  static String render(Variant variant, Map<String, String> sets) {
    TemplateCommand template = template(renderableCopy(), variant);
    for (Map.Entry<String, String> set : sets.entrySet()) {
      template = template.set(set.getKey(), set.getValue());
    }
    return template.call();
  }

  /** Renders the default values plus a values file written from {@code yaml}. */
  static String renderWithValues(String yaml) {
    try {
      Path values = Files.createTempFile("fencepost-values", ".yaml");
      try {
        Files.writeString(values, yaml, StandardCharsets.UTF_8);
        return template(renderableCopy(), Variant.DEFAULTS).withValuesFile(values).call();
      } finally {
        Files.deleteIfExists(values);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Renders {@code variant} from a copy of the chart whose Chart.yaml says {@code version}. */
  static String renderAsVersion(Variant variant, String version) {
    try {
      Path copy = copyWithHooksVisible();
      Path chartYaml = copy.resolve("Chart.yaml");
      String text = Files.readString(chartYaml, StandardCharsets.UTF_8);
      Files.writeString(
          chartYaml,
          text.replaceFirst("(?m)^version: .*$", "version: " + version),
          StandardCharsets.UTF_8);
      return template(copy, variant).call();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The release's template command on {@code chart}, with {@code variant}'s values file if any. */
  private static TemplateCommand template(Path chart, Variant variant) {
    TemplateCommand template =
        new Helm(chart)
            .template()
            .withName(RELEASE)
            .withNamespace(NAMESPACE)
            .withKubeVersion(KUBE_VERSION);
    if (variant.valuesFile().isPresent()) {
      template = template.withValuesFile(variant.valuesFile().get());
    }
    return template;
  }

  private static Path renderableCopy() {
    Path copy = renderable;
    if (copy == null) {
      synchronized (HelmChart.class) {
        copy = renderable;
        if (copy == null) {
          copy = copyWithHooksVisible();
          renderable = copy;
        }
      }
    }
    return copy;
  }

  private static Path copyWithHooksVisible() {
    try {
      Path root = Files.createTempDirectory("fencepost-chart");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(root)));
      Path target = root.resolve("fencepost");
      Path source = chartDir();
      try (Stream<Path> files = Files.walk(source)) {
        for (Path file : (Iterable<Path>) files::iterator) {
          Path to = target.resolve(source.relativize(file).toString());
          if (Files.isDirectory(file)) {
            Files.createDirectories(to);
          } else {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            Files.writeString(
                to, text.replace(HOOK + ":", TEST_HOOK + ":"), StandardCharsets.UTF_8);
          }
        }
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteQuietly(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // A temporary copy left behind costs disk space only.
    }
  }
}
