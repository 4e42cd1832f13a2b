package dev.fencepost.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.lock.FencingToken;
import dev.fencepost.testsupport.logging.CapturedEvents;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * FR-22 and INV-08, exhaustively: every (state, event, role) triple the table does not allow is
 * tried against a real payout in that state, under a token that is not stale, and must be refused
 * with {@link IllegalTransitionException}, a {@code payout.transition_rejected} event and a
 * counter, leaving every paydb row exactly as it was. The space is finite (8 x 13 x 3), so it is
 * enumerated rather than sampled.
 */
@Tag("FR-22")
@Tag("INV-08")
class UnlistedTransitionsTest {

  @RegisterExtension static EmbeddedPostgresExtension db = Paydb.extension();
  @RegisterExtension CapturedEvents events = new CapturedEvents();

  static final FencingToken TOKEN = FencingToken.of(20);

  static SimpleMeterRegistry meters;
  static PaymentResource resource;
  static Scenarios scenarios;
  static Paydb paydb;
  static final List<String> tried = new ArrayList<>();
  static final Map<PayoutState, Payout> payoutByState = new EnumMap<>(PayoutState.class);

  @BeforeAll
  static void setUp() {
    meters = new SimpleMeterRegistry();
    resource = new PaymentResource(db.dataSource(), meters);
    scenarios = new Scenarios(resource, new PayoutIntake(db.dataSource(), "unlisted"));
    paydb = new Paydb(db.dataSource());
  }

  static Stream<Arguments> unlistedTriples() {
    List<Arguments> triples = new ArrayList<>();
    for (PayoutState state : PayoutState.values()) {
      for (PayoutEvent event : PayoutEvent.values()) {
        for (Actor.Role role : Actor.Role.values()) {
          if (PayoutTransitions.refusal(state, event, role).isPresent()) {
            triples.add(Arguments.of(state, event, role));
          }
        }
      }
    }
    return triples.stream();
  }

  @Test
  void theEnumerationCoversEveryTripleTheTableRefuses() {
    int all =
        PayoutState.values().length * PayoutEvent.values().length * Actor.Role.values().length;
    assertThat(unlistedTriples().count()).isEqualTo(all - PayoutTransitions.rows().size());
  }

  @ParameterizedTest(name = "{0} + {1} by {2} is refused")
  @MethodSource("unlistedTriples")
  void everyUnlistedTransitionIsRefusedAndChangesNothing(
      PayoutState state, PayoutEvent event, Actor.Role role) {
    Payout payout = payoutByState.computeIfAbsent(state, scenarios::payoutIn);
    Actor actor = Events.actorFor(role);
    var before = paydb.snapshot();
    int transitionsBefore = events.named("payout.transition").size();

    assertThatThrownBy(() -> resource.apply(payout.id(), event, TOKEN, actor, "detail"))
        .isInstanceOfSatisfying(
            IllegalTransitionException.class,
            e -> {
              assertThat(e.code()).isEqualTo("ILLEGAL_TRANSITION");
              assertThat(e.payoutId()).isEqualTo(payout.id());
              assertThat(e.from()).isEqualTo(state);
              assertThat(e.event()).isEqualTo(event);
              assertThat(e.role()).isEqualTo(role);
              assertThat(e.refusal())
                  .isEqualTo(PayoutTransitions.refusal(state, event, role).orElseThrow());
            });

    // Nothing changed, not even the fence: the refusal rolled the fence advance back.
    assertThat(paydb.snapshot()).isEqualTo(before);
    assertThat(events.named("payout.transition_rejected"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.get("payoutId")).isEqualTo(payout.id().toString());
              assertThat(e.get("from")).isEqualTo(state.name());
              assertThat(e.get("payoutEvent")).isEqualTo(event.name());
              assertThat(e.get("role")).isEqualTo(role.name());
              assertThat(e.get("terminal")).isEqualTo(state.isTerminal());
              assertThat(e.get("level")).isEqualTo("WARN");
            });
    assertThat(events.named("payout.transition")).hasSize(transitionsBefore);
    tried.add(state + "/" + event + "/" + role);
  }

  @AfterAll
  static void everyRefusalWasCounted() {
    double rejected =
        meters.find("fencepost.payout.transitions.rejected").counters().stream()
            .mapToDouble(c -> c.count())
            .sum();
    assertThat(rejected).isEqualTo(tried.size());
  }
}
