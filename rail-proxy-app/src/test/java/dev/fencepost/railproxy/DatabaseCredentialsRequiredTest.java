package dev.fencepost.railproxy;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencepost.testsupport.grants.TestGrants;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The proxy ships no database credentials: started with proxydb's URL and none, outside the local
 * profile, it does not start, and the failure names the missing property (ADR 0160).
 */
class DatabaseCredentialsRequiredTest {

  @Test
  void withoutCredentialsTheProxyDoesNotStartAndNamesTheMissingProperty() {
    assertThatThrownBy(() -> RailProxyApplication.application().run(args()))
        .rootCause()
        .hasMessageStartingWith("spring.datasource.username is not set")
        .hasMessageContaining("ADR 0160");
  }

  @Test
  void withAUserNameButNoPasswordItNamesThePassword() {
    List<String> args = new ArrayList<>(List.of(args()));
    args.add("--spring.datasource.username=proxydb_app");
    assertThatThrownBy(() -> RailProxyApplication.application().run(args.toArray(String[]::new)))
        .rootCause()
        .hasMessageStartingWith("spring.datasource.password is not set");
  }

  private static String[] args() {
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    // Nothing listens there: the check comes before any connection.
    args.add("--spring.datasource.url=jdbc:postgresql://127.0.0.1:9/proxydb");
    args.add("--fencepost.rail.base-url=http://127.0.0.1:9");
    args.add(TestGrants.staticProxyArg());
    args.addAll(TestIdentities.proxyArgs());
    return args.toArray(String[]::new);
  }
}
