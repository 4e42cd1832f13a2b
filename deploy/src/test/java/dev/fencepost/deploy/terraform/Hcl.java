package dev.fencepost.deploy.terraform;

import java.util.List;
import java.util.Map;

/** Reading hcl4j's maps: a block written once is a map, written several times a list of maps. */
final class Hcl {

  private Hcl() {}

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object value) {
    return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  /** The blocks of that name: none, one or several. */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> blocks(Object value) {
    if (value instanceof Map<?, ?> m) {
      return List.of((Map<String, Object>) m);
    }
    if (value instanceof List<?> l) {
      return l.stream().filter(Map.class::isInstance).map(e -> (Map<String, Object>) e).toList();
    }
    return List.of();
  }

  /** The single block {@code path[0]} / {@code path[1]} / ... (the first of repeated ones). */
  static Map<String, Object> block(Map<String, Object> body, String... path) {
    Map<String, Object> current = body;
    for (String name : path) {
      List<Map<String, Object>> found = blocks(current.get(name));
      if (found.isEmpty()) {
        return Map.of();
      }
      current = found.get(0);
    }
    return current;
  }

  static boolean has(Map<String, Object> body, String... path) {
    Map<String, Object> current = body;
    for (int i = 0; i < path.length - 1; i++) {
      current = block(current, path[i]);
    }
    return current.containsKey(path[path.length - 1]);
  }

  static String text(Object value) {
    return value == null ? null : String.valueOf(value);
  }

  static List<?> list(Object value) {
    return value instanceof List<?> l ? l : List.of();
  }
}
