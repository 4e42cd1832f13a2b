package dev.fencepost.lock.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jwt.SignedJWT;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.client.testing.Closer;
import dev.fencepost.lock.client.testing.OnEveryBackend;
import dev.fencepost.lock.client.testing.RealLockServer;
import dev.fencepost.lock.client.testing.TestSettings;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A held lock carries the lock server's signed grant next to its token, and always the latest one:
 * each heartbeat renew replaces it with the freshly signed grant of the same token (ADR 0135).
 */
class SignedGrantTest {

  @RegisterExtension final Closer closer = new Closer();

  @OnEveryBackend
  void aHeldLockCarriesTheLatestSignedGrantForItsToken(RealLockServer server) throws Exception {
    LockClient client =
        closer.register(
            TestSettings.against(server.baseUrl())
                .owner("signed-grant-holder")
                .ttl(Duration.ofSeconds(4))
                .startClient());
    LockKey key = LockKey.of("payout:acc-signed-" + server.backend().name().toLowerCase());

    try (HeldLock lock = client.acquire(key, Duration.ofSeconds(5))) {
      String first = lock.signedGrant();
      SignedJWT jwt = SignedJWT.parse(first);
      assertThat(jwt.getJWTClaimsSet().getStringClaim("lock_key")).isEqualTo(key.value());
      assertThat(jwt.getJWTClaimsSet().getLongClaim("fencing_token"))
          .isEqualTo(lock.token().value());

      await().atMost(Duration.ofSeconds(10)).until(() -> !lock.signedGrant().equals(first));

      SignedJWT renewed = SignedJWT.parse(lock.signedGrant());
      assertThat(renewed.getJWTClaimsSet().getLongClaim("fencing_token"))
          .isEqualTo(lock.token().value());
      assertThat(renewed.getJWTClaimsSet().getExpirationTime())
          .isAfterOrEqualTo(jwt.getJWTClaimsSet().getExpirationTime());
    }
  }
}
