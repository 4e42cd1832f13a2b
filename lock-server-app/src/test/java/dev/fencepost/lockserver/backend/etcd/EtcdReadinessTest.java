package dev.fencepost.lockserver.backend.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.launcher.etcd.EtcdMember;
import dev.fencepost.lockserver.http.LockServerClient;
import dev.fencepost.testsupport.etcd.EtcdClusterExtension;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A lock server on etcd is ready only while etcd can answer a linearizable read: with its only
 * member killed the readiness group (with {@code etcd} in it, as the Helm chart sets it) says DOWN,
 * so the Service stops sending callers there, and it is ready again once the member is back.
 * Liveness stays UP throughout: a dead backend is no reason to restart the lock server.
 */
@Tag("NFR-05")
class EtcdReadinessTest {

  @RegisterExtension static EtcdClusterExtension etcd = EtcdClusterExtension.singleMember();

  private ConfigurableApplicationContext server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    EtcdMember member = etcd.cluster().members().get(0);
    if (!member.isRunning()) {
      member.restart();
    }
  }

  @Test
  void readinessFollowsWhetherEtcdAnswersAndLivenessDoesNot() {
    server =
        EtcdLockServer.start(
            etcd.endpoints(),
            "/readiness/",
            "--management.endpoint.health.group.readiness.include=readinessState,etcd");
    LockServerClient management = LockServerClient.managementOf(server);
    assertThat(management.get("/actuator/health/readiness").status()).isEqualTo(200);

    EtcdMember member = etcd.cluster().members().get(0);
    member.kill();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(management.get("/actuator/health/readiness").status()).isEqualTo(503));
    assertThat(management.get("/actuator/health/liveness").status()).isEqualTo(200);

    member.restart();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> assertThat(management.get("/actuator/health/readiness").status()).isEqualTo(200));
  }
}
