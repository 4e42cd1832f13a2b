package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import tools.jackson.databind.JsonNode;

/** The submission parser refuses every generated bad body, naming the bad field. */
class SubmissionRequestProperties {

  @Property(tries = 500)
  void everyBodyWithOneBadFieldIsRefusedNamingThatField(
      @ForAll("mutations") BadBodies.Mutation mutation) {
    JsonNode tree = ProxyHttp.JSON.valueToTree(mutation.body());

    InvalidRequestException refused =
        catchThrowableOfType(
            InvalidRequestException.class, () -> SubmissionRequest.from(tree, "EUR"));

    assertThat(refused).as(mutation.toString()).isNotNull();
    assertThat(refused.field()).isEqualTo(mutation.field());
  }

  @Property(tries = 200)
  void everyWellFormedBodyIsAccepted(
      @ForAll("identifiers") String payoutId,
      @ForAll("identifiers") String accountId,
      @ForAll("positive") long token,
      @ForAll("positive") long amount) {
    var body = ProxyHttp.body(payoutId, accountId, token);
    body.put("amountMinor", amount);

    SubmissionRequest parsed = SubmissionRequest.from(ProxyHttp.JSON.valueToTree(body), "EUR");

    assertThat(parsed.payoutId()).isEqualTo(payoutId);
    assertThat(parsed.fencingToken()).isEqualTo(token);
    assertThat(parsed.amountMinor()).isEqualTo(amount);
    assertThat(parsed.lockKey()).isEqualTo("payout:" + accountId);
  }

  @Provide
  Arbitrary<BadBodies.Mutation> mutations() {
    return BadBodies.mutations();
  }

  @Provide
  Arbitrary<String> identifiers() {
    return Arbitraries.strings()
        .withCharRange('a', 'z')
        .withCharRange('0', '9')
        .withChars(':', '.', '_', '-')
        .ofMinLength(1)
        .ofMaxLength(100)
        .map(s -> s.length() > 120 ? s.substring(0, 120) : s);
  }

  @Provide
  Arbitrary<Long> positive() {
    return Arbitraries.longs().between(1, Long.MAX_VALUE);
  }
}
