package dev.fencepost.payoutjob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutState;
import dev.fencepost.payoutjob.PayoutFailpoint.Point;
import dev.fencepost.security.FencepostRole;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * UC-03 through the job: a worker freezes right after its claim; an operator revokes its lock
 * (FR-08, the token advances), a second worker takes the account and completes the payout; the
 * first worker thaws and carries on. Whatever its local checks say, it must not move money again:
 * it ends FENCED_OUT at a guard (or LOCK_LOST if its heartbeat noticed first), and the rail saw
 * exactly one movement.
 */
@Tag("UC-03")
class PausedHolderTest {

  @Test
  void aThawedHolderIsFencedOutAndTheRailSeesOneMovement() throws Exception {
    Platform platform = Platform.shared();
    Payout payout = platform.accountWithPayouts("paused", 20_000, 1, 3_000).get(0);
    CountDownLatch frozen = new CountDownLatch(1);
    CountDownLatch thaw = new CountDownLatch(1);
    try (ConfigurableApplicationContext stale =
            platform.workerWithFailpoint(
                (point, p) -> {
                  if (point == Point.CLAIMED) {
                    frozen.countDown();
                    try {
                      thaw.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }
                });
        ConfigurableApplicationContext successor = platform.worker()) {
      CompletableFuture<PayoutResult> staleResult =
          CompletableFuture.supplyAsync(() -> stale.getBean(PayoutExecutor.class).execute(payout));
      assertThat(frozen.await(60, TimeUnit.SECONDS)).isTrue();

      HttpResponse<String> revoked =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              platform.lockUrl()
                                  + "/v1/admin/locks/payout:"
                                  + payout.accountId()
                                  + "/revoke"))
                      .header("Content-Type", "application/json")
                      .header(
                          "Authorization",
                          "Bearer " + platform.tokens(FencepostRole.OPERATOR).currentToken())
                      .POST(HttpRequest.BodyPublishers.ofString("{\"reason\":\"worker frozen\"}"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(revoked.statusCode()).isEqualTo(200);
      PayoutResult done = successor.getBean(PayoutExecutor.class).execute(payout);
      assertThat(done.outcome()).isEqualTo(PayoutOutcome.POSTED);

      thaw.countDown();
      PayoutResult thawed = staleResult.get(60, TimeUnit.SECONDS);

      assertThat(thawed.outcome()).isIn(PayoutOutcome.FENCED_OUT, PayoutOutcome.LOCK_LOST);
      assertThat(platform.reload(payout).state()).isEqualTo(PayoutState.POSTED);
      assertThat(platform.movements(payout.id())).isEqualTo(1);
      assertThat(platform.submissions(payout.id())).isEqualTo(1);
      assertThat(platform.payments.account(payout.accountId()).balanceMinor())
          .isEqualTo(20_000 - 3_000);
    }
  }
}
