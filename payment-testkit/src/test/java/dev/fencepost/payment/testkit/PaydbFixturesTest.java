package dev.fencepost.payment.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;

class PaydbFixturesTest {

  @RegisterExtension
  static EmbeddedPostgresExtension paydb =
      EmbeddedPostgresExtension.withChangelog("db/changelog/paydb/db.changelog-master.yaml");

  @Test
  void eachCallGetsAFundedAccountOfItsOwnWithPendingPayouts() {
    PaydbFixtures fixtures = new PaydbFixtures(paydb.dataSource(), "kit-test");
    List<Payout> first = fixtures.accountWithPayouts("kit", 10_000, 3, 500);
    List<Payout> second = fixtures.accountWithPayouts("kit", 10_000, 1, 500);
    assertThat(first).hasSize(3).allMatch(p -> p.state() == PayoutState.PENDING);
    assertThat(first).extracting(Payout::accountId).containsOnly(first.get(0).accountId());
    assertThat(second.get(0).accountId()).isNotEqualTo(first.get(0).accountId());
    assertThat(
            JdbcClient.create(paydb.dataSource())
                .sql(
                    "SELECT count(*) FROM audit_event WHERE actor_role = 'INTAKE'"
                        + " AND actor_id = 'kit-test' AND action = 'PAYOUT_CREATED'")
                .query(Long.class)
                .single())
        .isEqualTo(4);
  }
}
