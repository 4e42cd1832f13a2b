package dev.fencepost.security.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.client.registration.InMemoryClientRegistrationRepository;
import org.springframework.security.oauth2.core.AuthorizationGrantType;

/**
 * A client-credentials token is renewed once, by one caller, while the others keep using the token
 * they have (ADR 0198). The issuer is a real HTTP server on loopback that counts token requests and
 * can hold an answer until the test lets it go; the clock is the test's.
 */
class ClientCredentialsTokenSourceTest {

  /**
   * The first token's lifetime; the n-th lives n times as long, so a renewed token is fresh on the
   * test's clock even though Spring dates it by the system clock, which the test's runs ahead of.
   */
  private static final Duration LIFETIME = Duration.ofMinutes(5);

  private HttpServer issuer;
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicReference<CountDownLatch> hold = new AtomicReference<>();
  private final AtomicReference<Integer> status = new AtomicReference<>(200);
  // Spring dates a fetched token by the system clock, so the test clock starts from it.
  private final MutableClock clock = new MutableClock(Instant.now());
  private ExecutorService callers;
  private ClientCredentialsTokenSource tokens;

  @BeforeEach
  void startIssuer() throws IOException {
    issuer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    issuer.setExecutor(Executors.newCachedThreadPool());
    issuer.createContext(
        "/token",
        exchange -> {
          int n = requests.incrementAndGet();
          CountDownLatch latch = hold.get();
          if (latch != null) {
            try {
              latch.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          exchange.getRequestBody().readAllBytes();
          byte[] body =
              ("{\"access_token\":\"t"
                      + n
                      + "\",\"token_type\":\"Bearer\",\"expires_in\":"
                      + LIFETIME.toSeconds() * n
                      + "}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(status.get(), body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    issuer.start();
    ClientRegistration registration =
        ClientRegistration.withRegistrationId(ClientCredentialsTokenSource.REGISTRATION_ID)
            .clientId("payout-worker")
            .clientSecret("not-a-real-secret")
            .authorizationGrantType(AuthorizationGrantType.CLIENT_CREDENTIALS)
            .tokenUri("http://127.0.0.1:" + issuer.getAddress().getPort() + "/token")
            .build();
    tokens =
        new ClientCredentialsTokenSource(
            new InMemoryClientRegistrationRepository(registration),
            ClientCredentialsTokenSource.REGISTRATION_ID,
            clock);
    callers = Executors.newFixedThreadPool(20);
  }

  @AfterEach
  void stop() {
    CountDownLatch latch = hold.get();
    if (latch != null) {
      latch.countDown();
    }
    callers.shutdownNow();
    issuer.stop(0);
  }

  @Test
  void aFreshTokenIsHandedOutFromMemoryWithoutAskingTheIssuerAgain() {
    assertThat(tokens.currentToken()).isEqualTo("t1");
    clock.advance(LIFETIME.minus(ClientCredentialsTokenSource.RENEW_AHEAD).minusSeconds(1));

    for (int i = 0; i < 100; i++) {
      assertThat(tokens.currentToken()).isEqualTo("t1");
    }
    assertThat(requests).hasValue(1);
  }

  @Test
  void aTokenDueForRenewalIsRenewedByOneCallerWhileTheOthersKeepTheValidOne() throws Exception {
    assertThat(tokens.currentToken()).isEqualTo("t1");
    clock.advance(LIFETIME.minus(ClientCredentialsTokenSource.RENEW_AHEAD).plusSeconds(1));
    CountDownLatch held = new CountDownLatch(1);
    hold.set(held);

    // One caller renews and waits on the held answer; the other 19 must come back at once.
    List<Future<String>> answers = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      answers.add(callers.submit(tokens::currentToken));
    }
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> answers.stream().filter(Future::isDone).count() == 19);
    List<String> immediate = new ArrayList<>();
    Future<String> renewer = null;
    for (Future<String> answer : answers) {
      if (answer.isDone()) {
        immediate.add(answer.get());
      } else {
        renewer = answer;
      }
    }

    assertThat(immediate).hasSize(19).containsOnly("t1");
    assertThat(requests).hasValue(2);
    held.countDown();
    assertThat(renewer).isNotNull();
    assertThat(renewer.get(10, TimeUnit.SECONDS)).isEqualTo("t2");
    assertThat(tokens.currentToken()).isEqualTo("t2");
    assertThat(requests).hasValue(2);
  }

  @Test
  void callersWithNoValidTokenAllWaitForOneFetch() throws Exception {
    CountDownLatch held = new CountDownLatch(1);
    hold.set(held);

    List<Future<String>> answers = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      answers.add(callers.submit(tokens::currentToken));
    }
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> requests.get() == 1);
    held.countDown();

    for (Future<String> answer : answers) {
      assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo("t1");
    }
    assertThat(requests).hasValue(1);
  }

  @Test
  void aFailedRenewalKeepsTheStillValidTokenAndWaitsBeforeTryingAgain() {
    assertThat(tokens.currentToken()).isEqualTo("t1");
    clock.advance(LIFETIME.minus(ClientCredentialsTokenSource.RENEW_AHEAD).plusSeconds(1));
    status.set(500);

    assertThat(tokens.currentToken()).isEqualTo("t1");
    assertThat(tokens.currentToken()).isEqualTo("t1");
    assertThat(requests).hasValue(2);

    clock.advance(ClientCredentialsTokenSource.RETRY_GAP.plusMillis(1));
    status.set(200);
    assertThat(tokens.currentToken()).isEqualTo("t3");
  }

  @Test
  void withNoValidTokenAFailedFetchIsTheCallersError() {
    status.set(500);

    assertThatThrownBy(tokens::currentToken).isInstanceOf(RuntimeException.class);
  }

  /** A clock the test moves by hand. */
  private static final class MutableClock extends Clock {
    private volatile Instant now;

    MutableClock(Instant start) {
      this.now = start;
    }

    void advance(Duration by) {
      now = now.plus(by);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }
}
