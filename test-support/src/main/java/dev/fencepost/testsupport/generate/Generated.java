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
}
