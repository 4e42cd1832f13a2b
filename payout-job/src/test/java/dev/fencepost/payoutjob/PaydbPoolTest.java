package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.autoconfigure.PaydbAutoConfiguration;
import dev.fencepost.testsupport.postgres.Sessions;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * paydb reaches the job through payment-resource's auto-configuration ({@code fencepost.paydb.*}),
 * with the pool sizes the job has always had: four connections, or one per payout thread plus one,
 * and batchdb one per thread plus two (ADR 0063); both with the db module's timeouts (ADR 0155) and
 * TLS (ADR 0157).
 */
class PaydbPoolTest {

  private final Platform platform = Platform.shared();

  @Test
  void theWorkerUsesThePaydbNamedByFencepostPaydbUrl() {
    List<Payout> payouts = platform.accountWithPayouts("paydbprops", 10_000, 1, 100);
    try (ConfigurableApplicationContext worker =
        platform.worker(
            "--fencepost.paydb.url=" + platform.services.paydb().jdbcUrl(),
            // The name before fencepost.paydb: pointing it nowhere shows it is not what is used.
            "--fencepost.payout.paydb.url=jdbc:postgresql://127.0.0.1:9/nowhere")) {
      assertThat(worker.getBean(PaymentResource.class).findPayout(payouts.get(0).id())).isPresent();
    }
  }

  @Test
  void paydbHasFourConnectionsForOnePayoutThread() {
    try (ConfigurableApplicationContext worker = platform.worker()) {
      assertThat(paydbPool(worker).getMaximumPoolSize()).isEqualTo(4);
    }
  }

  @Test
  void bothPoolsGrowToFitTheProcesssPayoutThreads() {
    try (ConfigurableApplicationContext worker =
        platform.worker("--fencepost.payout.concurrency=20")) {
      assertThat(paydbPool(worker).getMaximumPoolSize()).isEqualTo(21);
      assertThat(((HikariDataSource) worker.getBean(DataSource.class)).getMaximumPoolSize())
          .isEqualTo(22);
    }
  }

  @Test
  void bothPoolsCarryTheDatabaseTimeoutsOnTheServerAndOnTheSocket() throws Exception {
    try (ConfigurableApplicationContext worker = platform.worker()) {
      for (DataSource pool : List.of(paydbPool(worker), worker.getBean(DataSource.class))) {
        assertThat(Sessions.timeouts(pool)).isEqualTo("5s 3s 5s, network 8000 ms");
      }
    }
  }

  @Test
  void bothPoolsRequireTlsAndTheirSessionsAreEncrypted() {
    try (ConfigurableApplicationContext worker = platform.worker()) {
      for (HikariDataSource pool :
          List.of(paydbPool(worker), (HikariDataSource) worker.getBean(DataSource.class))) {
        assertThat(pool.getDataSourceProperties()).containsEntry("sslmode", "require");
        assertThat(
                JdbcClient.create(pool)
                    .sql("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
                    .query(Boolean.class)
                    .single())
            .isTrue();
      }
    }
  }

  private static HikariDataSource paydbPool(ConfigurableApplicationContext worker) {
    return worker.getBean(PaydbAutoConfiguration.DATA_SOURCE_BEAN, HikariDataSource.class);
  }
}
