package dev.fencepost.railproxy;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

/**
 * Generated bad submissions: a valid body with exactly one field removed or given a bad value, so a
 * refusal can be traced to that field.
 */
final class BadBodies {

  static final Object REMOVED = new Object();

  static final List<String> IDENTIFIERS =
      List.of("payoutId", "accountId", "clientReference", "beneficiaryRef");
  static final List<String> NUMBERS = List.of("fencingToken", "amountMinor");

  private BadBodies() {}

  /** One mutated body and the field that makes it bad. */
  record Mutation(String field, Object value, Map<String, Object> body) {
    @Override
    public String toString() {
      return field + " = " + (value == REMOVED ? "<removed>" : String.valueOf(value));
    }
  }

  static Arbitrary<Mutation> mutations() {
    Arbitrary<String> field =
        Arbitraries.of(
            "payoutId",
            "accountId",
            "fencingToken",
            "clientReference",
            "amountMinor",
            "currency",
            "beneficiaryRef");
    return field.flatMap(f -> badValueFor(f).map(v -> mutate(f, v)));
  }

  static Arbitrary<Object> badValueFor(String field) {
    Arbitrary<Object> wrongShape =
        Arbitraries.of(REMOVED, "null", true, List.of(1), Map.of("nested", 1))
            .map(v -> "null".equals(v) ? null : v);
    if (NUMBERS.contains(field)) {
      return Arbitraries.oneOf(
          wrongShape,
          Arbitraries.longs().lessOrEqual(0).map(v -> (Object) v),
          Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(6).map(v -> (Object) v),
          Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(6).map(v -> (Object) v),
          Arbitraries.doubles()
              .between(-1e6, 1e6)
              .filter(d -> d != Math.rint(d))
              .map(v -> (Object) v),
          Arbitraries.longs()
              .between(1, 1_000)
              .map(
                  v ->
                      (Object)
                          BigInteger.valueOf(Long.MAX_VALUE).multiply(BigInteger.valueOf(v + 1))));
    }
    if (field.equals("currency")) {
      return Arbitraries.oneOf(
          wrongShape,
          Arbitraries.strings()
              .withCharRange('A', 'Z')
              .ofLength(3)
              .filter(c -> !c.equals("EUR"))
              .map(v -> (Object) v),
          Arbitraries.of("eur", "EURO", "", "€").map(v -> (Object) v),
          Arbitraries.integers().map(v -> (Object) v));
    }
    return Arbitraries.oneOf(
        wrongShape,
        Arbitraries.just((Object) ""),
        Arbitraries.strings().alpha().ofMinLength(129).ofMaxLength(400).map(v -> (Object) v),
        Arbitraries.strings()
            .withChars(" /\\?#%\"<>{}@!*'\t\n")
            .ofMinLength(1)
            .ofMaxLength(8)
            .map(v -> (Object) ("id" + v)),
        Arbitraries.longs().map(v -> (Object) v));
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
