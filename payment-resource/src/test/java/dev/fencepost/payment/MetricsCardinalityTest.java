package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * NFR-09: after every kind of outcome (transitions, refusals, fenced-out writes, bad input, ledger
 * assertion failure), no meter carries an account id, payout id, token or owner as a tag value, and
 * every name is dot-separated under {@code fencepost.}.
 */
@org.junit.jupiter.api.Tag("NFR-09")
class MetricsCardinalityTest {

  @RegisterExtension static EmbeddedPostgresExtension db = Paydb.extension();

  static final Set<String> ALLOWED_TAG_KEYS =
      Set.of("guard", "reason", "from", "to", "event", "refusal", "operation", "code", "check");

  @Test
  void noMeterIsTaggedWithAnUnboundedIdentifier() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    PaymentResource resource = new PaymentResource(db.dataSource(), meters);
    Scenarios scenarios = new Scenarios(resource, new PayoutIntake(db.dataSource(), "metrics"));
    Set<String> identifiers = new HashSet<>();

    Payout posted = scenarios.payoutIn(PayoutState.POSTED);
    Payout claimed = scenarios.payoutIn(PayoutState.CLAIMED);
    resource.reclaim(claimed.id(), FencingToken.of(99), Actor.worker("owner-xyz"));
    catchThrowable(
        () -> resource.markSubmitted(claimed.id(), FencingToken.of(11), Actor.worker("w")));
    catchThrowable(() -> resource.claim(posted.id(), FencingToken.of(98), Actor.worker("w")));
    catchThrowable(() -> resource.claim(PayoutId.random(), FencingToken.of(1), Actor.worker("w")));
    catchThrowable(() -> resource.claim(posted.id(), null, Actor.worker("w")));
    for (Payout p : new Payout[] {posted, claimed}) {
      identifiers.add(p.id().toString());
      identifiers.add(p.accountId().value());
      identifiers.add(p.clientReference());
    }
    identifiers.addAll(Set.of("99", "11", "98", "owner-xyz", "setup-worker"));

    assertThat(meters.getMeters()).isNotEmpty();
    for (Meter meter : meters.getMeters()) {
      assertThat(meter.getId().getName()).matches("fencepost(\\.[a-z_]+)+");
      for (Tag tag : meter.getId().getTags()) {
        assertThat(tag.getKey()).isIn(ALLOWED_TAG_KEYS);
        assertThat(tag.getValue()).isNotIn(identifiers).matches("[A-Za-z_]+");
      }
    }
    assertThat(meters.get("fencepost.fence.rejections").counter().count()).isEqualTo(1.0);
    assertThat(meters.get("fencepost.guard.rejections").counter().count()).isEqualTo(1.0);
    assertThat(meters.get("fencepost.payout.transitions.rejected").counter().count())
        .isEqualTo(1.0);
    assertThat(meters.find("fencepost.payment.requests.rejected").counters()).hasSize(2);
  }
}
