package dev.fencepost.launcher;

import dev.fencepost.launcher.process.JavaProcess;
import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.BearerTokenSources;
import dev.fencepost.security.FencepostRole;
import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The identities of a local platform (docs/security.md): the identity issuer as its own process,
 * one client per workload ({@code payout-worker}, {@code reconciler}, {@code rail-proxy}, {@code
 * operator}) with a secret generated for this run, and what each process needs to take part.
 *
 * <ul>
 *   <li>A service validating tokens gets {@link #serviceEnvironment()}: the issuer's JWK set and
 *       issuer URL.
 *   <li>A process calling a service as a workload gets {@link #clientEnvironment(FencepostRole)}:
 *       the same plus its client registration ({@code spring.security.oauth2.client.registration
 *       .fencepost.*}), secret included.
 *   <li>Code in this JVM (tests, experiments, the summary) calls as a workload with {@link
 *       #tokens(FencepostRole)}.
 * </ul>
 *
 * Everything is passed in the process environment as {@code SPRING_APPLICATION_JSON}: never on a
 * command line (which {@code ps} shows to every user) and never logged.
 */
public final class LocalIdentity implements AutoCloseable {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final JavaProcess issuer;
  private final Map<FencepostRole, String> secrets;
  private final Map<FencepostRole, BearerTokenSource> tokenSources =
      new EnumMap<>(FencepostRole.class);

  private LocalIdentity(JavaProcess issuer, Map<FencepostRole, String> secrets) {
    this.issuer = issuer;
    this.secrets = secrets;
  }

  /**
   * Starts the issuer on a free loopback port, logging to {@code identity-issuer.log} in {@code
   * workDir}, and returns once it is healthy.
   */
  public static LocalIdentity start(Path workDir, Duration startTimeout) {
    Map<FencepostRole, String> secrets = new EnumMap<>(FencepostRole.class);
    ObjectNode clients = JSON.createObjectNode();
    for (FencepostRole role : FencepostRole.values()) {
      byte[] bytes = new byte[32];
      RANDOM.nextBytes(bytes);
      String secret = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
      secrets.put(role, secret);
      clients.putObject(clientId(role)).put("secret", secret);
    }
    ObjectNode settings = JSON.createObjectNode();
    settings.putObject("fencepost").putObject("issuer").set("clients", clients);
    JavaProcess issuer =
        App.IDENTITY_ISSUER
            .process("identity-issuer", workDir.resolve("identity-issuer.log"))
            .httpPort(0)
            .environment("SPRING_APPLICATION_JSON", JSON.writeValueAsString(settings))
            .start();
    try {
      issuer.awaitHealthy(startTimeout, 3);
    } catch (RuntimeException e) {
      issuer.kill();
      throw e;
    }
    return new LocalIdentity(issuer, secrets);
  }

  /** The issuer's client id for the workload with {@code role}: {@code payout-worker} etc. */
  public static String clientId(FencepostRole role) {
    return role == FencepostRole.RECONCILER
        ? "reconciler"
        : role.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The issuer's base URL: the {@code iss} of its tokens. */
  public String issuerUrl() {
    return issuer.baseUrl();
  }

  public String jwkSetUri() {
    return issuerUrl() + "/oauth2/jwks";
  }

  public URI tokenUri() {
    return URI.create(issuerUrl() + "/oauth2/token");
  }

  public JavaProcess process() {
    return issuer;
  }

  /** The environment of a service that validates tokens from this issuer. */
  public Map<String, String> serviceEnvironment() {
    ObjectNode settings = JSON.createObjectNode();
    resourceServer(settings);
    return Map.of("SPRING_APPLICATION_JSON", JSON.writeValueAsString(settings));
  }

  /**
   * The environment of a process that calls services as the workload with {@code role} (and may
   * serve requests too): its client registration and the issuer's keys.
   */
  public Map<String, String> clientEnvironment(FencepostRole role) {
    ObjectNode settings = JSON.createObjectNode();
    ObjectNode oauth2 = resourceServer(settings);
    ObjectNode client = oauth2.putObject("client");
    client
        .putObject("registration")
        .putObject("fencepost")
        .put("client-id", clientId(role))
        .put("client-secret", secrets.get(role))
        .put("authorization-grant-type", "client_credentials")
        .put("provider", "fencepost");
    client.putObject("provider").putObject("fencepost").put("token-uri", tokenUri().toString());
    Map<String, String> environment = new LinkedHashMap<>();
    environment.put("SPRING_APPLICATION_JSON", JSON.writeValueAsString(settings));
    return environment;
  }

  /**
   * The same settings as {@link #clientEnvironment(FencepostRole)}, as properties, for an
   * application started inside this JVM (a test's context): nothing reaches a command line.
   */
  public Map<String, String> clientProperties(FencepostRole role) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("spring.security.oauth2.resourceserver.jwt.jwk-set-uri", jwkSetUri());
    properties.put("spring.security.oauth2.resourceserver.jwt.issuer-uri", issuerUrl());
    String registration = "spring.security.oauth2.client.registration.fencepost.";
    properties.put(registration + "client-id", clientId(role));
    properties.put(registration + "client-secret", secrets.get(role));
    properties.put(registration + "authorization-grant-type", "client_credentials");
    properties.put(registration + "provider", "fencepost");
    properties.put(
        "spring.security.oauth2.client.provider.fencepost.token-uri", tokenUri().toString());
    return properties;
  }

  /**
   * Tokens of the workload with {@code role}, for calls made from this JVM: one source per role, so
   * its cached token serves every call until it is due for renewal (a source per call would fetch a
   * token from the issuer for every request).
   */
  public synchronized BearerTokenSource tokens(FencepostRole role) {
    return tokenSources.computeIfAbsent(
        role, r -> BearerTokenSources.clientCredentials(tokenUri(), clientId(r), secrets.get(r)));
  }

  /** Applies {@code environment} to a process about to start. */
  public static JavaProcess.Builder withEnvironment(
      JavaProcess.Builder process, Map<String, String> environment) {
    environment.forEach(process::environment);
    return process;
  }

  private ObjectNode resourceServer(ObjectNode settings) {
    ObjectNode oauth2 = settings.putObject("spring").putObject("security").putObject("oauth2");
    oauth2
        .putObject("resourceserver")
        .putObject("jwt")
        .put("jwk-set-uri", jwkSetUri())
        .put("issuer-uri", issuerUrl());
    return oauth2;
  }

  @Override
  public void close() {
    issuer.close();
  }
}
