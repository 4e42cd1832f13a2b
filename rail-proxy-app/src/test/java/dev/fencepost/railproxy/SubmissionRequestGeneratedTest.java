package dev.fencepost.railproxy;

import static dev.fencepost.testsupport.generate.Generated.forAll;
import static dev.fencepost.testsupport.generate.Generated.string;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fencepost.testsupport.http.TestHttp;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The submission parser refuses every generated bad body, naming the bad field. */
class SubmissionRequestGeneratedTest {

  private static final String ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789:._-";

  @Test
  void everyBodyWithOneBadFieldIsRefusedNamingThatField() {
    forAll(
        500,
        BadBodies::mutation,
        mutation -> {
          JsonNode tree = TestHttp.JSON.valueToTree(mutation.body());

          InvalidSubmissionException refused =
              catchThrowableOfType(
                  InvalidSubmissionException.class, () -> SubmissionRequest.from(tree, "EUR"));

          assertThat(refused).as(mutation.toString()).isNotNull();
          assertThat(refused.field()).isEqualTo(mutation.field());
        });
  }

  @Test
  void everyWellFormedBodyIsAccepted() {
    forAll(
        200,
        r ->
            new Object[] {
              string(r, ID_CHARS, 1, 100),
              string(r, ID_CHARS, 1, 100),
              1 + (r.nextLong() & Long.MAX_VALUE) % (Long.MAX_VALUE - 1),
              1 + (r.nextLong() & Long.MAX_VALUE) % (Long.MAX_VALUE - 1)
            },
        input -> {
          String payoutId = (String) input[0];
          String accountId = (String) input[1];
          long token = (Long) input[2];
          long amount = (Long) input[3];
          var body = ProxyHttp.body(payoutId, accountId, token);
          body.put("amountMinor", amount);

          SubmissionRequest parsed = SubmissionRequest.from(TestHttp.JSON.valueToTree(body), "EUR");

          assertThat(parsed.payoutId()).isEqualTo(payoutId);
          assertThat(parsed.fencingToken()).isEqualTo(token);
          assertThat(parsed.amountMinor()).isEqualTo(amount);
          assertThat(parsed.lockKey()).isEqualTo("payout:" + accountId);
        });
  }
}
