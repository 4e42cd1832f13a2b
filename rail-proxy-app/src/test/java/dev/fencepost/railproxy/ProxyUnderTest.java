package dev.fencepost.railproxy;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.fencepost.testsupport.grants.TestGrants;
import dev.fencepost.testsupport.postgres.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * What the tests of a proxy have in common: a WireMock rail that settles every payment, the
 * arguments every proxy a test starts itself begins with, and the properties of one that {@code
 * SpringBootTest} starts. Each test adds only what it is about (a switch, a key source, a
 * verifier).
 */
final class ProxyUnderTest {

  private ProxyUnderTest() {}

  /** A started WireMock rail that settles every payment under {@code railReference}. */
  static WireMockServer settlingRail(String railReference) {
    WireMockServer rail = new WireMockServer(options().dynamicPort());
    rail.start();
    settleEverything(rail, railReference);
    return rail;
  }

  /** Makes {@code rail} answer every payment 201 SETTLED under {@code railReference}. */
  static void settleEverything(WireMockServer rail, String railReference) {
    rail.stubFor(
        post(urlEqualTo("/rail/payments"))
            .willReturn(
                aResponse()
                    .withStatus(201)
                    .withHeader("Content-Type", "application/json")
                    .withBody(
                        "{\"railReference\":\"" + railReference + "\",\"status\":\"SETTLED\"}")));
  }

  /**
   * A free port, proxydb in {@code db}, {@code rail} with a timeout a busy machine does not hit,
   * the module's test issuer and {@code railTokenFile} as the proxy's own rail credential; then
   * {@code more}. Where its grant keys come from is each test's choice (a file or a lock server's
   * URI: exactly one, ADR 0137).
   */
  static List<String> args(
      EmbeddedPostgresExtension db, WireMockServer rail, Path railTokenFile, String... more) {
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--management.server.port=0");
    args.add("--spring.datasource.url=" + db.jdbcUrl());
    // As proxydb's runtime role (ADR 0160), the extension having migrated it as the owner.
    args.add("--spring.datasource.username=" + db.database().runtime().username());
    args.add("--spring.datasource.password=" + db.database().runtime().password());
    args.add("--fencepost.rail.base-url=" + rail.baseUrl());
    args.add("--fencepost.rail.timeout=5s");
    args.addAll(TestIdentities.proxyArgs(railTokenFile));
    args.addAll(List.of(more));
    return args;
  }

  /** The same, with the module's long-lived rail credential. */
  static List<String> args(EmbeddedPostgresExtension db, WireMockServer rail) {
    return args(db, rail, TestIdentities.RAIL_TOKEN_FILE);
  }

  /**
   * For a {@code SpringBootTest} proxy: proxydb in {@code db}, the test grant keys' file and the
   * module's test issuer. Each test adds its rail.
   */
  static void register(DynamicPropertyRegistry registry, EmbeddedPostgresExtension db) {
    registry.add("spring.datasource.url", db::jdbcUrl);
    // As proxydb's runtime role (ADR 0160), the extension having migrated it as the owner.
    registry.add("spring.datasource.username", () -> db.database().runtime().username());
    registry.add("spring.datasource.password", () -> db.database().runtime().password());
    registry.add(
        "fencepost.proxy.grants.jwk-set-file", () -> TestGrants.keys().publicFile().toString());
    TestIdentities.register(registry);
  }

  /** The port a started proxy listens on. */
  static int port(ConfigurableApplicationContext app) {
    return Integer.parseInt(app.getEnvironment().getRequiredProperty("local.server.port"));
  }
}
