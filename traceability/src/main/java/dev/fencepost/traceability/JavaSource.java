package dev.fencepost.traceability;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds JUnit 5 {@code @Tag("...")} annotations in the text of one Java source file and what each
 * one annotates: a class (or interface, enum, record) or a method. Read as text on purpose, so the
 * page can be generated without compiling or loading any test.
 */
final class JavaSource {

  /** One tag and the declaration it annotates; {@code method} is null for a type. */
  record Tagged(String tag, String type, String method) {}

  private static final Pattern TAG =
      Pattern.compile(
          "@(?:org\\.junit\\.jupiter\\.api\\.)?Tag\\s*\\(\\s*(?:value\\s*=\\s*)?\"([^\"]*)\"\\s*\\)");

  private static final Pattern TYPE_DECLARATION =
      Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Za-z_$][\\w$]*)");

  private static final Pattern LAST_IDENTIFIER = Pattern.compile("([A-Za-z_$][\\w$]*)\\s*$");

  private JavaSource() {}

  /**
   * Every tag in {@code source} with what it annotates.
   *
   * @throws IllegalArgumentException naming the tag when it annotates neither a type nor a method
   */
  static List<Tagged> tags(String source) {
    String code = withoutComments(source);
    List<Tagged> found = new ArrayList<>();
    Matcher m = TAG.matcher(code);
    while (m.find()) {
      int end = skipAnnotations(code, m.end());
      int stop = end;
      while (stop < code.length() && "({;=".indexOf(code.charAt(stop)) < 0) {
        stop++;
      }
      String declaration = code.substring(end, stop);
      Matcher type = TYPE_DECLARATION.matcher(declaration);
      Matcher method = LAST_IDENTIFIER.matcher(declaration);
      if (type.find()) {
        found.add(new Tagged(m.group(1), type.group(1), null));
      } else if (stop < code.length() && code.charAt(stop) == '(' && method.find()) {
        found.add(new Tagged(m.group(1), null, method.group(1)));
      } else {
        throw new IllegalArgumentException(
            "@Tag(\"" + m.group(1) + "\") annotates neither a type nor a method");
      }
    }
    return found;
  }

  /** Skips whitespace and further annotations (with their arguments) from {@code i}. */
  private static int skipAnnotations(String code, int i) {
    while (true) {
      while (i < code.length() && Character.isWhitespace(code.charAt(i))) {
        i++;
      }
      if (i >= code.length() || code.charAt(i) != '@') {
        return i;
      }
      i++;
      while (i < code.length()
          && (Character.isJavaIdentifierPart(code.charAt(i)) || code.charAt(i) == '.')) {
        i++;
      }
      int j = i;
      while (j < code.length() && Character.isWhitespace(code.charAt(j))) {
        j++;
      }
      if (j < code.length() && code.charAt(j) == '(') {
        i = afterParentheses(code, j);
      }
    }
  }

  private static int afterParentheses(String code, int open) {
    int depth = 0;
    for (int i = open; i < code.length(); i++) {
      char c = code.charAt(i);
      if (c == '"') {
        i = afterString(code, i);
        continue;
      }
      if (c == '(') {
        depth++;
      } else if (c == ')' && --depth == 0) {
        return i + 1;
      }
    }
    return code.length();
  }

  private static int afterString(String code, int quote) {
    int i = quote + 1;
    while (i < code.length() && code.charAt(i) != '"') {
      i += code.charAt(i) == '\\' ? 2 : 1;
    }
    return i;
  }

  /**
   * The source with every comment replaced by spaces (line breaks kept), so that a tag quoted in a
   * Javadoc or commented out is not taken for a real one. String, text-block and character literals
   * are kept as they are.
   */
  static String withoutComments(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int i = 0;
    int n = source.length();
    while (i < n) {
      char c = source.charAt(i);
      char next = i + 1 < n ? source.charAt(i + 1) : 0;
      if (c == '/' && next == '/') {
        while (i < n && source.charAt(i) != '\n') {
          out.append(' ');
          i++;
        }
      } else if (c == '/' && next == '*') {
        int end = source.indexOf("*/", i + 2);
        end = end < 0 ? n : end + 2;
        for (; i < end; i++) {
          out.append(source.charAt(i) == '\n' ? '\n' : ' ');
        }
      } else if (source.startsWith("\"\"\"", i)) {
        int end = source.indexOf("\"\"\"", i + 3);
        end = end < 0 ? n : end + 3;
        out.append(source, i, end);
        i = end;
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && source.charAt(j) != c && source.charAt(j) != '\n') {
          j += source.charAt(j) == '\\' ? 2 : 1;
        }
        j = Math.min(n, j + 1);
        out.append(source, i, j);
        i = j;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }
}
