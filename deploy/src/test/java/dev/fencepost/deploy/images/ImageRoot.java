package dev.fencepost.deploy.images;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An image's file system unpacked into a directory and its processes run inside it as a container
 * runtime would start them, without one: {@code unshare} gives the process a mount and PID
 * namespace of its own with a fresh {@code /proc} (the JVM finds its own libraries through {@code
 * /proc/self/exe}), {@code chroot} makes the unpacked layers its whole file system and switches to
 * the image's user. The root file system is read-only and {@code /tmp} an empty tmpfs, as the chart
 * runs it. The environment is the image's alone; nothing of the build machine is visible but the
 * network (loopback). Needs root (CAP_SYS_ADMIN, CAP_SYS_CHROOT), as the build here and in CI runs.
 */
final class ImageRoot {

  private static final String UNSHARE = "/usr/bin/unshare";

  private static final String READ_ONLY_ROOT_WITH_TMP =
      "set -e; root=\"$1\"; user=\"$2\"; shift 2;"
          + " /bin/mount --rbind \"$root\" \"$root\";"
          + " /bin/mount -o remount,bind,ro \"$root\";"
          + " /bin/mount -t tmpfs -o mode=1777,size=256m tmpfs \"$root/tmp\";"
          + " exec /usr/sbin/chroot --userspec=\"$user\" \"$root\" \"$@\"";

  private final ImageTarball image;
  private final Path root;

  private ImageRoot(ImageTarball image, Path root) {
    this.image = image;
    this.root = root;
  }

  /** Unpacks {@code image} into {@code directory}/root. */
  static ImageRoot unpack(ImageTarball image, Path directory) {
    Path root = directory.resolve("root");
    image.unpackTo(root);
    try {
      // The mount point of the process's own /proc; a container runtime makes it the same way.
      Files.createDirectories(root.resolve("proc"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ImageRoot(image, root);
  }

  Path root() {
    return root;
  }

  /**
   * Starts {@code command} (the image's entrypoint or another program of the image) as the image's
   * user, with the image's environment plus {@code extraEnvironment}, output to {@code log}.
   */
  Process start(List<String> command, Map<String, String> extraEnvironment, Path log) {
    List<String> full = new ArrayList<>();
    full.add(UNSHARE);
    full.add("--mount");
    full.add("--pid");
    // The application is unshare's child and PID 1 of its namespace; a test stops it by its PID.
    full.add("--fork");
    full.add("--mount-proc=" + root.resolve("proc"));
    // In the new mount namespace (the build machine's shell, not the image's): the image's file
    // system read-only, an empty tmpfs on /tmp, as the chart mounts them; then chroot execs the
    // command as the image's user, so the application is PID 1 with nothing else around it.
    full.add("/bin/sh");
    full.add("-c");
    full.add(READ_ONLY_ROOT_WITH_TMP);
    full.add("sh");
    full.add(root.toString());
    full.add(image.user());
    full.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(full).redirectErrorStream(true);
    builder.redirectOutput(log.toFile());
    // chroot finds the entrypoint's "java" on this PATH, the image's, inside the image.
    builder.environment().clear();
    builder.environment().putAll(image.env());
    builder.environment().putAll(extraEnvironment);
    builder.directory(root.toFile());
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + full, e);
    }
  }

  static String read(Path log) {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
