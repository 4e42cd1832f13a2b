package dev.fencepost.testsupport.generate;

import static dev.fencepost.testsupport.generate.Generated.notAJsonObject;
import static dev.fencepost.testsupport.generate.Generated.notAnIntegerIn;
import static dev.fencepost.testsupport.generate.Generated.oneOf;
import static dev.fencepost.testsupport.generate.Generated.overlong;
import static dev.fencepost.testsupport.generate.Generated.pick;
import static dev.fencepost.testsupport.generate.Generated.string;
import static dev.fencepost.testsupport.generate.Generated.withControlCharacter;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Generated bad calls to batch-support's {@code /actuator/batchjobs/{jobName}}, the same for every
 * job application: launches with parameters that are not {@code key=value} pairs, have an empty,
 * overlong or control-character key or value, or are not a string; bodies that are not a JSON
 * object; unknown, overlong and control-character job names; listings with a limit that is not an
 * integer in 1..200. None of them may launch anything.
 */
public final class BadBatchJobCalls {

  private static final String NAME_CHARS = "abcdefghijklmnopqrstuvwxyz.";

  private BadBatchJobCalls() {}

  /**
   * A bad call to the endpoint of {@code jobName}.
   *
   * @param extraBadParameters more parameters the job refuses, or null
   */
  public static Call of(Random random, String jobName, String[] extraBadParameters) {
    String path = "/actuator/batchjobs/";
    return switch (random.nextInt(extraBadParameters == null ? 6 : 7)) {
      case 0 -> Call.post(path + jobName, "{\"parameters\":" + quoted(badParameters(random)) + "}");
      case 1 ->
          Call.post(
              path + jobName,
              "{\"parameters\":"
                  + pick(random, "5", "true", "{\"a\":\"1\"}", "[\"a\"]", "[1,2]", "{}")
                  + "}");
      case 2 -> {
        // No body (or JSON null) is a launch without parameters, which is not bad input.
        String body = notAJsonObject(random);
        yield Call.post(path + jobName, body.isBlank() || body.equals("null") ? "[]" : body);
      }
      case 3 -> Call.post(path + badJobName(random, jobName), "{}");
      case 4 -> Call.get(path + badJobName(random, jobName));
      case 5 -> Call.get(path + jobName + "?limit=" + notAnIntegerIn(random, 1, 200));
      default ->
          Call.post(
              path + jobName, "{\"parameters\":" + quoted(pick(random, extraBadParameters)) + "}");
    };
  }

  /** Parameters the endpoint refuses whatever the job. */
  public static String badParameters(Random random) {
    return oneOf(
        random,
        r -> string(r, NAME_CHARS, 1, 20),
        r -> pick(r, "=x", " =x", "a=1,=2", "a=1,,b=2", ",", "=", "a=1, =2"),
        r -> withControlCharacter(r, "origin=te", "st"),
        r -> withControlCharacter(r, "ori", "gin=test"),
        r -> overlong(r, NAME_CHARS, 100, 200) + "=x",
        r -> "origin=" + overlong(r, NAME_CHARS, 2500, 500));
  }

  /** A job name that names no job: unknown, overlong, or with a control character, URL-encoded. */
  public static String badJobName(Random random, String jobName) {
    String name =
        oneOf(
            random,
            r -> "no" + string(r, NAME_CHARS, 1, 30),
            r -> jobName + string(r, "xyz", 1, 3),
            r -> overlong(r, NAME_CHARS, 100, 300),
            r -> withControlCharacter(r, jobName, ""),
            r -> jobName.toUpperCase(java.util.Locale.ROOT) + "é");
    return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String quoted(String text) {
    StringBuilder json = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') {
        json.append('\\').append(c);
      } else if (c < 0x20) {
        json.append(String.format("\\u%04x", (int) c));
      } else {
        json.append(c);
      }
    }
    return json.append('"').toString();
  }

  /**
   * One call: a method, a path and a JSON body (null for none).
   *
   * @param method the HTTP method
   * @param path the path, URL-encoded
   * @param body the body, sent as {@code application/json}, or null
   */
  public record Call(String method, String path, String body) {
    static Call post(String path, String body) {
      return new Call("POST", path, body);
    }

    static Call get(String path) {
      return new Call("GET", path, null);
    }
  }
}
