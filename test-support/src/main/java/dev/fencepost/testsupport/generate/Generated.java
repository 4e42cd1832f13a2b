package dev.fencepost.testsupport.generate;

import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Generated test inputs from a seeded {@link Random}: enough for "500 bad bodies per endpoint"
 * without a property-testing library. Runs are reproducible: the seed is fixed per call site unless
 * {@code -Dfencepost.seed=N} overrides it, and a failure names the seed and the case.
 */
public final class Generated {

  private static final long DEFAULT_SEED = 20261129L;

  private Generated() {}

  /**
   * How many cases a generated check draws: {@code testCommand} in the test command, {@code
   * longTier} in the long tier ({@code -Dexperiments.long=true}), which draws the same first cases
   * and more of them (the seed is the same).
   */
  public static int cases(int testCommand, int longTier) {
    return Boolean.getBoolean("experiments.long") ? longTier : testCommand;
  }

  /** Checks {@code cases} inputs drawn by {@code generator}; stops at the first failure. */
  public static <T> void forAll(int cases, Function<Random, T> generator, Consumer<T> check) {
    long seed = Long.getLong("fencepost.seed", DEFAULT_SEED);
    Random random = new Random(seed);
    for (int i = 0; i < cases; i++) {
      T input = generator.apply(random);
      try {
        check.accept(input);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "generated case " + i + " of " + cases + " (seed " + seed + ") failed for: " + input,
            e);
      }
    }
  }

  /** A string of {@code min..max} characters drawn from {@code alphabet}. */
  public static String string(Random random, String alphabet, int min, int max) {
    int length = min + random.nextInt(max - min + 1);
    StringBuilder s = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      s.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return s.toString();
  }

  /** A string of arbitrary UTF-16 code units, control characters and surrogates included. */
  public static String anyString(Random random, int max) {
    int length = random.nextInt(max + 1);
    StringBuilder s = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      s.append((char) random.nextInt(random.nextBoolean() ? 128 : 0xFFFF));
    }
    return s.toString();
  }

  /** One of the given values. */
  @SafeVarargs
  public static <T> T pick(Random random, T... values) {
    return values[random.nextInt(values.length)];
  }

  /** One of the given values. */
  public static <T> T pick(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  /** The result of one of the given generators, chosen uniformly. */
  @SafeVarargs
  public static <T> T oneOf(Random random, Function<Random, T>... generators) {
    return generators[random.nextInt(generators.length)].apply(random);
  }

  /** A long outside {@code [min, max]}, mostly near the edges and at the extremes. */
  public static long outside(Random random, long min, long max) {
    return switch (random.nextInt(4)) {
      case 0 -> min - 1 - random.nextInt(1000);
      case 1 -> max + 1 + random.nextInt(1000);
      case 2 -> Long.MIN_VALUE + random.nextInt(1000);
      default -> Long.MAX_VALUE - random.nextInt(1000);
    };
  }

  /** The JSON texts of values that are not a positive integer of a long's range. */
  public static final List<String> NOT_A_POSITIVE_LONG =
      List.of(
          "\"abc\"",
          "\"42\"",
          "[]",
          "{}",
          "true",
          "1.5",
          "-0.0",
          "0",
          "-1",
          "1e309",
          "99999999999999999999999",
          "-9223372036854775809",
          "\"\"",
          "[1,2]",
          "null");

  /** The JSON texts of values that are not a string. */
  public static final List<String> NOT_A_STRING =
      List.of("[]", "{}", "true", "false", "1.5", "7", "-7", "[\"a\"]", "{\"a\":\"b\"}", "null");

  /** One C0 or C1 control character (Unicode category Cc), NUL included. */
  public static char controlCharacter(Random random) {
    int c = random.nextInt(32 + 33);
    return (char) (c < 32 ? c : 0x7F + (c - 32));
  }

  /** {@code prefix}, one control character, then {@code suffix}: free text that must be refused. */
  public static String withControlCharacter(Random random, String prefix, String suffix) {
    return prefix + controlCharacter(random) + suffix;
  }

  /** A string of {@code max + 1} to {@code max + 1 + slack} characters from {@code alphabet}. */
  public static String overlong(Random random, String alphabet, int max, int slack) {
    return string(random, alphabet, max + 1, max + 1 + slack);
  }

  /**
   * Text that is not a JSON value, or is a JSON value of no object shape: arbitrary characters,
   * JSON-like fragments, truncated objects, bare scalars and arrays.
   */
  public static String notAJsonObject(Random random) {
    return oneOf(
        random,
        r -> {
          String s = anyString(r, 200);
          // Arbitrary text that happens to be an object is not what this generator promises.
          return s.trim().startsWith("{") ? "x" + s : s;
        },
        r -> "[" + string(r, "{}[]\":,0123456789truefalsn ", 0, 60),
        r ->
            pick(
                r,
                "",
                " ",
                "null",
                "[]",
                "[{}]",
                "\"x\"",
                "42",
                "-1",
                "true",
                "{",
                "{\"a\":",
                "{\"a\":1}{",
                "{\"a\" 1}",
                "{'a':1}",
                "{\"a\":1,}",
                "{a:1}",
                "\uFEFF{",
                "<xml/>",
                "a=1&b=2"));
  }

  /** A query parameter value, URL-encoded, that is not an integer in {@code [min, max]}. */
  public static String notAnIntegerIn(Random random, long min, long max) {
    String raw =
        oneOf(
            random,
            r -> Long.toString(outside(r, min, max)),
            r -> "9" + string(r, "0123456789", 19, 40),
            r -> "-9" + string(r, "0123456789", 19, 40),
            r -> string(r, "0123456789", 1, 3) + "." + string(r, "0123456789", 1, 3),
            r -> string(r, "abcXYZ", 1, 10),
            r -> pick(r, "0x10", "1e3", "+-1", "--1", " 1", "1 ", "NaN", "Infinity", "true"),
            r -> withControlCharacter(r, "1", "2"));
    return java.net.URLEncoder.encode(raw, java.nio.charset.StandardCharsets.UTF_8)
        .replace("+", "%20");
  }
}
