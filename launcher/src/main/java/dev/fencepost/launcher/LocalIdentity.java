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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
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
 * <p>People sign in too (ADR 0185): {@value #OPERATOR} holds OPERATOR and {@value #NON_OPERATOR}
 * holds no role, each with a password generated for the run ({@link #person(String)}); the issuer
 * gets only their encoded form. When given the operator console's address, the issuer registers the
 * console's client with it as the one place a signed-in person is sent back to.
 *
 * <p>Everything is passed in the process environment as {@code SPRING_APPLICATION_JSON}: never on a
 * command line (which {@code ps} shows to every user) and never logged.
 */
public final class LocalIdentity implements AutoCloseable {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final SecureRandom RANDOM = new SecureRandom();

  /** The run's operator, a person: signs in to the console and holds OPERATOR. */
  public static final String OPERATOR = "alice";

  /** A person with no role at all: signs in, and the console shows them nothing. */
  public static final String NON_OPERATOR = "bob";

  /** A person's user name and the password they type (held by this JVM only). */
  public record Person(String username, String password) {
    @Override
    public String toString() {
      return "Person[" + username + "]";
    }
  }

  private final JavaProcess issuer;
  private final Map<FencepostRole, String> secrets;
  private final Map<String, Person> people;
  private final Map<FencepostRole, BearerTokenSource> tokenSources =
      new EnumMap<>(FencepostRole.class);

  private LocalIdentity(
      JavaProcess issuer, Map<FencepostRole, String> secrets, Map<String, Person> people) {
    this.issuer = issuer;
    this.secrets = secrets;
    this.people = people;
  }

  /**
   * Starts the issuer on a free loopback port, logging to {@code identity-issuer.log} in {@code
   * workDir}, and returns once it is healthy.
   */
  public static LocalIdentity start(Path workDir, Duration startTimeout) {
    return start(workDir, startTimeout, List.of());
  }

  /**
   * The same, with the operator console's client registered for {@code consoleRedirectUris} (its
   * {@code /login/oauth2/code/fencepost} URLs); none, no console client.
   */
  public static LocalIdentity start(
      Path workDir, Duration startTimeout, List<String> consoleRedirectUris) {
    Map<FencepostRole, String> secrets = new EnumMap<>(FencepostRole.class);
    ObjectNode clients = JSON.createObjectNode();
    for (FencepostRole role : FencepostRole.values()) {
      String secret = randomSecret();
      secrets.put(role, secret);
      clients.putObject(clientId(role)).put("secret", secret);
    }
    Map<String, Person> people = new LinkedHashMap<>();
    ObjectNode users = JSON.createObjectNode();
    var encoder = PasswordEncoderFactories.createDelegatingPasswordEncoder();
    for (String name : List.of(OPERATOR, NON_OPERATOR)) {
      Person person = new Person(name, randomSecret());
      people.put(name, person);
      ObjectNode user = users.putObject(name).put("password", encoder.encode(person.password()));
      var roles = user.putArray("roles");
      if (name.equals(OPERATOR)) {
        roles.add(FencepostRole.OPERATOR.name());
      }
    }
    ObjectNode settings = JSON.createObjectNode();
    ObjectNode issuerSettings = settings.putObject("fencepost").putObject("issuer");
    issuerSettings.set("clients", clients);
    issuerSettings.set("users", users);
    var redirects = issuerSettings.putObject("console").putArray("redirect-uris");
    consoleRedirectUris.forEach(redirects::add);
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
    return new LocalIdentity(issuer, secrets, people);
  }

  private static String randomSecret() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The person {@code username} ({@value #OPERATOR} or {@value #NON_OPERATOR}) of this run. */
  public Person person(String username) {
    Person person = people.get(username);
    if (person == null) {
      throw new IllegalArgumentException("no person " + username + " in this run");
    }
    return person;
  }

  /** The issuer's process. */
  public JavaProcess issuer() {
    return issuer;
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
