package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.lock.LockGrant;
import dev.fencepost.lock.LockKey;
import dev.fencepost.lock.SessionId;
import dev.fencepost.lockserver.LockServerApplication;
import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * INV-04 is a property of restore, not of normal operation (D5). Restoring etcd from a backup
 * rewinds its revision, and with it the token source: a restored cluster hands out tokens that
 * guards have already accepted. Debian's etcd 3.4.23 has no {@code --bump-revision} on restore, so
 * the lock server carries the remedy itself: given the highest fence either guard holds, it writes
 * until etcd's revision is past it, before serving.
 */
class EtcdRestoreTest {

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.singleMember();

  @TempDir static Path backups;

  private static final LockKey KEY = LockKey.of("payout:restore-" + UUID.randomUUID());
  private static Client client;
  private static EtcdLockBackend backend;

  @BeforeAll
  static void start() {
    client = EtcdFailover.client(etcd.cluster());
    backend = EtcdFailover.backend(client, "/restore/");
  }

  @AfterAll
  static void stop() {
    client.close();
  }

  private static long grantAndRelease() {
    SessionId session = backend.createSession("worker", Duration.ofSeconds(30)).sessionId();
    LockGrant grant = backend.acquire(KEY, session, Duration.ZERO);
    backend.release(KEY, session, grant.token());
    backend.closeSession(session);
    return grant.token().value();
  }

  @Test
  void aRestoredClusterReissuesSeenTokensUnlessTheRevisionIsAdvancedPastTheHighestFence() {
    EtcdMember member = etcd.cluster().member(0);
    Path nightly = backups.resolve("nightly");
    grantAndRelease();
    member.kill();
    member.copyDataDirectoryTo(nightly);
    member.restart();
    long highestSeenByGuards = 0;
    for (int i = 0; i < 20; i++) {
      highestSeenByGuards = Math.max(highestSeenByGuards, grantAndRelease());
    }

    // Disaster, restore from the nightly backup, serve at once: a token is issued again.
    member.kill();
    member.restoreDataDirectoryFrom(nightly);
    member.restart();
    long reissued = grantAndRelease();
    assertThat(reissued)
        .as("the hazard this procedure exists for: a token guards have already seen")
        .isLessThanOrEqualTo(highestSeenByGuards);

    // The procedure: restore, advance the revision past the highest fence, then serve.
    member.kill();
    member.restoreDataDirectoryFrom(nightly);
    member.restart();
    long reached = backend.advanceRevisionPast(highestSeenByGuards);
    long next = grantAndRelease();

    assertThat(reached).isGreaterThan(highestSeenByGuards);
    assertThat(next).isGreaterThan(highestSeenByGuards);
    assertThat(backend.advanceRevisionPast(highestSeenByGuards))
        .as("running the procedure again changes nothing")
        .isGreaterThanOrEqualTo(reached);
  }

  @Test
  void aLockServerStartedWithARevisionFloorServesOnlyTokensAboveIt() {
    long floor = grantAndRelease() + 300;
    ConfigurableApplicationContext server =
        LockServerApplication.application()
            .run(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--fencepost.lock.backend=etcd",
                "--fencepost.lock.etcd.endpoints=" + etcd.endpoints(),
                "--fencepost.lock.etcd.key-prefix=/restore/",
                "--fencepost.lock.etcd.revision-floor=" + floor,
                "--logging.structured.format.console=");
    try {
      int port = ((WebServerApplicationContext) server).getWebServer().getPort();
      LockServerClient http = new LockServerClient("http://127.0.0.1:" + port);
      String session = http.newSession("worker");

      long token = http.acquire("payout:after-restore", session, 0).token();

      assertThat(token).isGreaterThan(floor);
    } finally {
      server.close();
    }
  }
}
