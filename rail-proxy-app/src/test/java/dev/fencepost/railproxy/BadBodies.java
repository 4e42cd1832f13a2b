package dev.fencepost.railproxy;

import static dev.fencepost.testsupport.generate.Generated.oneOf;
import static dev.fencepost.testsupport.generate.Generated.pick;
import static dev.fencepost.testsupport.generate.Generated.string;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Generated bad submissions: a valid body with exactly one field removed or given a bad value, so a
 * refusal can be traced to that field.
 */
final class BadBodies {

  static final Object REMOVED = new Object();

  static final List<String> IDENTIFIERS =
      List.of("payoutId", "accountId", "clientReference", "beneficiaryRef");
  static final List<String> NUMBERS = List.of("fencingToken", "amountMinor");
  static final List<String> FIELDS =
      List.of(
          "payoutId",
          "accountId",
          "fencingToken",
          "clientReference",
          "amountMinor",
          "currency",
          "beneficiaryRef");

  private BadBodies() {}

  /** One mutated body and the field that makes it bad. */
  record Mutation(String field, Object value, Map<String, Object> body) {
    @Override
    public String toString() {
      return field + " = " + (value == REMOVED ? "<removed>" : String.valueOf(value));
    }
  }

  static Mutation mutation(Random random) {
    String field = pick(random, FIELDS);
    return mutate(field, badValueFor(field, random));
  }

  static Object badValueFor(String field, Random random) {
    if (NUMBERS.contains(field)) {
      return oneOf(
          random,
          BadBodies::wrongShape,
          r -> (Object) (-(r.nextLong() & Long.MAX_VALUE) % 1_000_000_000L),
          r -> (Object) string(r, "0123456789", 1, 6),
          r -> (Object) string(r, "abcdefXYZ", 1, 6),
          r -> (Object) (r.nextInt(2_000_000) - 1_000_000 + 0.5),
          r ->
              (Object)
                  BigInteger.valueOf(Long.MAX_VALUE)
                      .multiply(BigInteger.valueOf(2 + r.nextInt(1_000))));
    }
    if (field.equals("currency")) {
      return oneOf(
          random,
          BadBodies::wrongShape,
          r -> {
            String code = string(r, "ABCDFGHIJKLMNOPQRSTUVWXYZ", 3, 3);
            return (Object) code;
          },
          r -> (Object) pick(r, "eur", "EURO", "", "€"),
          r -> (Object) r.nextInt());
    }
    return oneOf(
        random,
        BadBodies::wrongShape,
        r -> (Object) "",
        r -> (Object) string(r, "abcdefghijklmnopqrstuvwxyz", 129, 400),
        r -> (Object) ("id" + string(r, " /\\?#%\"<>{}@!*'\t\n", 1, 8)),
        r -> (Object) r.nextLong());
  }

  private static Object wrongShape(Random random) {
    return pick(random, List.of(REMOVED, "null", true, List.of(1), Map.of("nested", 1)))
            .equals("null")
        ? null
        : pick(random, List.of(REMOVED, true, List.of(1), Map.of("nested", 1)));
  }

  static Mutation mutate(String field, Object value) {
    Map<String, Object> body = ProxyHttp.body("po-generated", "acc-generated", 5);
    if (value == REMOVED) {
      body.remove(field);
    } else {
      body.put(field, value);
    }
    return new Mutation(field, value, new LinkedHashMap<>(body));
  }
}
