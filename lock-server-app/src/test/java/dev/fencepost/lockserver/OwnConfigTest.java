package dev.fencepost.lockserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.testsupport.spring.PreparedEnvironment;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The lock server started as {@code main} starts it reads {@code lock-server.yaml}, by the config
 * name it sets itself: no caller has to point it at its own settings.
 */
class OwnConfigTest {

  @Test
  void startedAsMainStartsItTheServerReadsLockServerYaml() {
    ConfigurableEnvironment environment =
        PreparedEnvironment.of(LockServerApplication.application());

    assertThat(environment.getProperty("spring.config.name")).isEqualTo("lock-server");
    assertThat(environment.getProperty("spring.application.name")).isEqualTo("lock-server");
    assertThat(environment.getProperty("server.port")).isEqualTo("8081");
    assertThat(environment.getProperty("server.tomcat.max-keep-alive-requests")).isEqualTo("-1");
    // Twice the longest a lock client keeps an idle connection (ADR 0225): the client closes it.
    assertThat(environment.getProperty("server.tomcat.keep-alive-timeout")).isEqualTo("60s");
    // Platform request threads (ADR 0231): on virtual threads, in the JDK's default poller mode,
    // an acquire+release pair on PostgreSQL measured a third dearer.
    assertThat(environment.getProperty("spring.threads.virtual.enabled")).isEqualTo("false");
  }

  @Test
  void startedAsMainStartsItTheServerAsksTomcatForSmallWebSocketBuffersUnlessTheJvmWasGivenASize() {
    String given = System.getProperty(LockServerApplication.WEBSOCKET_BUFFER_PROPERTY);
    try {
      System.clearProperty(LockServerApplication.WEBSOCKET_BUFFER_PROPERTY);
      LockServerApplication.application();
      assertThat(System.getProperty(LockServerApplication.WEBSOCKET_BUFFER_PROPERTY))
          .isEqualTo("512");

      // An operator's -D wins: the server only fills in a size nobody gave.
      System.setProperty(LockServerApplication.WEBSOCKET_BUFFER_PROPERTY, "4096");
      LockServerApplication.application();
      assertThat(System.getProperty(LockServerApplication.WEBSOCKET_BUFFER_PROPERTY))
          .isEqualTo("4096");
    } finally {
      if (given == null) {
        System.clearProperty(LockServerApplication.WEBSOCKET_BUFFER_PROPERTY);
      } else {
        System.setProperty(LockServerApplication.WEBSOCKET_BUFFER_PROPERTY, given);
      }
    }
  }

  @Test
  void aCommandLineArgumentStillOverridesItsFile() {
    ConfigurableEnvironment environment =
        PreparedEnvironment.of(LockServerApplication.application(), "--server.port=18081");

    assertThat(environment.getProperty("server.port")).isEqualTo("18081");
  }
}
