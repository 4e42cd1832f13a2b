package dev.fencepost.deploy.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every application's image as the build wrote it (docs/images.md, ADR 0172): its configuration
 * (user, entrypoint, ports, labels) and what its layers hold (the runtime, the application, no
 * shell), read from the tarball without a container runtime.
 */
class ImageConfigTest {

  private static final Pattern NUMERIC_USER = Pattern.compile("(\\d+):(\\d+)");

  /** Names of a shell or of a binary that carries one; none may be in any layer. */
  private static final Set<String> SHELLS =
      Set.of("sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "csh", "tcsh", "busybox", "toybox");

  @ParameterizedTest
  @EnumSource(AppImage.class)
  void runsAsANumericUserThatIsNotRoot(AppImage app) {
    String user = app.read().user();

    var numeric = NUMERIC_USER.matcher(user);
    assertThat(numeric.matches()).as("User %s of %s is uid:gid", user, app).isTrue();
    assertThat(Integer.parseInt(numeric.group(1))).as("uid of %s", app).isNotZero();
    assertThat(Integer.parseInt(numeric.group(2))).as("gid of %s", app).isNotZero();
    assertThat(user).isEqualTo(AppImage.USER);
  }

  @ParameterizedTest
  @EnumSource(AppImage.class)
  void isNamedAfterItsModuleAndTaggedWithTheVersion(AppImage app) {
    assertThat(app.read().repoTags()).containsExactly(app.reference());
  }

  @ParameterizedTest
  @EnumSource(AppImage.class)
  void startsItsMainClassOnTheImagesJavaWithTheContainerFlags(AppImage app) {
    ImageTarball image = app.read();

    assertThat(image.entrypoint()).isEqualTo(app.entrypoint());
    assertThat(image.cmd()).isEmpty();
    assertThat(image.env()).containsEntry("PATH", "/opt/java/bin");
    Map<String, ImageTarball.Entry> files = image.files();
    assertThat(files.get("opt/java/bin/java"))
        .as("java on the image's PATH")
        .isNotNull()
        .matches(ImageTarball.Entry::executable, "executable");
  }

  @ParameterizedTest
  @EnumSource(AppImage.class)
  void exposesItsApplicationAndManagementPorts(AppImage app) {
    assertThat(app.read().exposedPorts()).isEqualTo(app.exposedPorts());
  }

  @ParameterizedTest
  @EnumSource(AppImage.class)
  void isLabelledWithTheVersionAndTheCommitItWasBuiltFrom(AppImage app) {
    Map<String, String> labels = app.read().labels();

    assertThat(AppImage.revision()).matches("[0-9a-f]{40}");
    assertThat(labels)
        .containsEntry("org.opencontainers.image.version", AppImage.version())
        .containsEntry("org.opencontainers.image.revision", AppImage.revision())
        .containsEntry("org.opencontainers.image.title", app.module());
    assertThat(labels.get("org.opencontainers.image.source")).startsWith("https://");
  }

  @ParameterizedTest
  @EnumSource(AppImage.class)
  void hasNoShellInAnyLayer(AppImage app) {
    List<String> shells =
        app.read().layers().stream()
            .flatMap(layer -> layer.entries().stream())
            .filter(entry -> !entry.directory())
            .map(ImageTarball.Entry::path)
            .filter(path -> SHELLS.contains(path.substring(path.lastIndexOf('/') + 1)))
            .toList();

    assertThat(shells).as("shells in %s", app).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(AppImage.class)
  void holdsTheRuntimeAndTheSharedLibrariesItLoads(AppImage app) {
    Map<String, ImageTarball.Entry> files = app.read().files();

    assertThat(files)
        .containsKeys(
            "opt/java/bin/java",
            "opt/java/lib/modules",
            "opt/java/lib/server/libjvm.so",
            "opt/java/lib/security/cacerts",
            "lib64/ld-linux-x86-64.so.2",
            "lib/x86_64-linux-gnu/libc.so.6",
            "lib/x86_64-linux-gnu/libm.so.6",
            "etc/passwd",
            "tmp");
  }

  @ParameterizedTest
  @EnumSource(AppImage.class)
  void holdsTheApplicationsClassesAndEveryClassPathEntry(AppImage app) {
    Map<String, ImageTarball.Entry> files = app.read().files();

    assertThat(files)
        .containsKeys(
            "app/jib-classpath-file",
            "app/classes/" + app.mainClass().replace('.', '/') + ".class");
    assertThat(files.keySet().stream().filter(path -> path.startsWith("app/libs/")).count())
        .as("libraries of %s", app)
        .isPositive();
  }

  @Test
  void everyApplicationSharesTheOneRuntimeLayerOfTheBase() {
    List<String> baseLayers =
        AppImage.base().layers().stream().map(ImageTarball.Layer::blob).toList();

    for (AppImage app : AppImage.values()) {
      List<String> layers = app.read().layers().stream().map(ImageTarball.Layer::blob).toList();
      assertThat(layers.subList(0, baseLayers.size()))
          .as("%s's first layers", app)
          .isEqualTo(baseLayers);
    }
    Set<String> runtimeLayers =
        AppImage.base().layers().stream()
            .filter(
                layer ->
                    layer.entries().stream().anyMatch(e -> e.path().equals("opt/java/lib/modules")))
            .map(ImageTarball.Layer::blob)
            .collect(Collectors.toSet());
    assertThat(runtimeLayers).hasSize(1);
  }
}
