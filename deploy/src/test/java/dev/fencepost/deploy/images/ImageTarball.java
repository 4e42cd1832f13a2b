package dev.fencepost.deploy.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * An image as Jib's {@code buildTar} writes it (the {@code docker load} format): {@code
 * manifest.json}, the image's {@code config.json} and one gzipped tar per layer, read as they are,
 * without a container runtime.
 */
final class ImageTarball {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One file, directory or link of a layer, by its path without the leading slash. */
  record Entry(String path, int mode, boolean directory, boolean symbolicLink, String linkName) {

    boolean executable() {
      return (mode & 0111) != 0;
    }
  }

  /** A layer: its blob's name in the tarball and its entries in order. */
  record Layer(String blob, List<Entry> entries) {}

  private final Path tar;
  private final JsonNode manifest;
  private final JsonNode config;
  private final List<Layer> layers;

  private ImageTarball(Path tar, JsonNode manifest, JsonNode config, List<Layer> layers) {
    this.tar = tar;
    this.manifest = manifest;
    this.config = config;
    this.layers = layers;
  }

  static ImageTarball read(Path tar) {
    try {
      Map<String, byte[]> members = members(tar);
      JsonNode manifest = JSON.readTree(members.get("manifest.json")).get(0);
      JsonNode config = JSON.readTree(members.get(manifest.get("Config").asText()));
      List<Layer> layers = new ArrayList<>();
      for (JsonNode blob : manifest.get("Layers")) {
        layers.add(new Layer(blob.asText(), entries(members.get(blob.asText()))));
      }
      return new ImageTarball(tar, manifest, config, List.copyOf(layers));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the image tarball " + tar, e);
    }
  }

  Path path() {
    return tar;
  }

  /** The image's name and tag as {@code docker load} gives it. */
  List<String> repoTags() {
    List<String> tags = new ArrayList<>();
    manifest.get("RepoTags").forEach(tag -> tags.add(tag.asText()));
    return tags;
  }

  /** The container configuration: {@code User}, {@code Entrypoint}, {@code Env}, ... */
  JsonNode containerConfig() {
    return config.get("config");
  }

  String user() {
    return containerConfig().path("User").asText("");
  }

  List<String> entrypoint() {
    List<String> entrypoint = new ArrayList<>();
    containerConfig().path("Entrypoint").forEach(part -> entrypoint.add(part.asText()));
    return entrypoint;
  }

  List<String> cmd() {
    List<String> cmd = new ArrayList<>();
    containerConfig().path("Cmd").forEach(part -> cmd.add(part.asText()));
    return cmd;
  }

  /** The environment the image sets, in order. */
  Map<String, String> env() {
    Map<String, String> env = new LinkedHashMap<>();
    containerConfig()
        .path("Env")
        .forEach(
            pair -> {
              String text = pair.asText();
              int equals = text.indexOf('=');
              env.put(text.substring(0, equals), text.substring(equals + 1));
            });
    return env;
  }

  Set<String> exposedPorts() {
    Set<String> ports = new TreeSet<>();
    containerConfig().path("ExposedPorts").fieldNames().forEachRemaining(ports::add);
    return ports;
  }

  Map<String, String> labels() {
    Map<String, String> labels = new LinkedHashMap<>();
    containerConfig()
        .path("Labels")
        .fields()
        .forEachRemaining(label -> labels.put(label.getKey(), label.getValue().asText()));
    return labels;
  }

  List<Layer> layers() {
    return layers;
  }

  /** The image's file system as a container sees it: the last layer that has a path wins. */
  Map<String, Entry> files() {
    Map<String, Entry> files = new LinkedHashMap<>();
    for (Layer layer : layers) {
      for (Entry entry : layer.entries()) {
        files.put(entry.path(), entry);
      }
    }
    return files;
  }

  /**
   * Unpacks every layer in order into {@code root}, with each entry's permissions, as a container
   * runtime would (the images have no whiteouts: a layer that deletes is refused).
   */
  void unpackTo(Path root) {
    try (InputStream in = Files.newInputStream(tar);
        TarArchiveInputStream outer = new TarArchiveInputStream(in)) {
      Map<String, Path> blobs = new LinkedHashMap<>();
      Path blobDirectory =
          Files.createDirectories(root.resolveSibling(root.getFileName() + ".blobs"));
      for (TarArchiveEntry member; (member = outer.getNextEntry()) != null; ) {
        Path blob = blobDirectory.resolve(Path.of(member.getName()).getFileName());
        Files.copy(outer, blob, StandardCopyOption.REPLACE_EXISTING);
        blobs.put(member.getName(), blob);
      }
      for (Layer layer : layers) {
        unpackLayer(blobs.get(layer.blob()), root);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack " + tar, e);
    }
  }

  private static void unpackLayer(Path blob, Path root) throws IOException {
    try (InputStream in = Files.newInputStream(blob);
        TarArchiveInputStream layer =
            new TarArchiveInputStream(new GzipCompressorInputStream(in))) {
      for (TarArchiveEntry entry; (entry = layer.getNextEntry()) != null; ) {
        String name = normalized(entry.getName());
        if (name.isEmpty()) {
          continue;
        }
        if (Path.of(name).getFileName().toString().startsWith(".wh.")) {
          throw new IllegalStateException("a layer deletes " + name + ": not expected here");
        }
        Path target = root.resolve(name).normalize();
        if (!target.startsWith(root)) {
          throw new IllegalStateException("a layer writes outside the root: " + name);
        }
        if (entry.isDirectory()) {
          Files.createDirectories(target);
        } else if (entry.isSymbolicLink()) {
          Files.createDirectories(target.getParent());
          Files.deleteIfExists(target);
          Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
          continue;
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(layer, target, StandardCopyOption.REPLACE_EXISTING);
        }
        Files.setPosixFilePermissions(target, permissions(entry.getMode()));
      }
    }
  }

  private static Set<PosixFilePermission> permissions(int mode) {
    Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] bits = {
      PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
      PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE,
      PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
      PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
      PosixFilePermission.OWNER_READ
    };
    for (int bit = 0; bit < bits.length; bit++) {
      if ((mode & (1 << bit)) != 0) {
        permissions.add(bits[bit]);
      }
    }
    return permissions;
  }

  private static Map<String, byte[]> members(Path tar) throws IOException {
    Map<String, byte[]> members = new LinkedHashMap<>();
    try (InputStream in = Files.newInputStream(tar);
        TarArchiveInputStream archive = new TarArchiveInputStream(in)) {
      for (TarArchiveEntry member; (member = archive.getNextEntry()) != null; ) {
        members.put(member.getName(), archive.readAllBytes());
      }
    }
    return members;
  }

  private static List<Entry> entries(byte[] gzippedLayer) throws IOException {
    List<Entry> entries = new ArrayList<>();
    try (TarArchiveInputStream layer =
        new TarArchiveInputStream(
            new GzipCompressorInputStream(new java.io.ByteArrayInputStream(gzippedLayer)))) {
      for (TarArchiveEntry entry; (entry = layer.getNextEntry()) != null; ) {
        String name = normalized(entry.getName());
        if (!name.isEmpty()) {
          entries.add(
              new Entry(
                  name,
                  entry.getMode(),
                  entry.isDirectory(),
                  entry.isSymbolicLink(),
                  entry.getLinkName()));
        }
      }
    }
    return entries;
  }

  private static String normalized(String name) {
    String path = name;
    while (path.startsWith("./") || path.startsWith("/")) {
      path = path.startsWith("./") ? path.substring(2) : path.substring(1);
    }
    return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }
}
