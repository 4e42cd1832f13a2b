package dev.fencepost.issuer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.CookieManager;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/**
 * A person signs in (ADR 0185): the console's public client with the authorization code and PKCE,
 * the person's password checked on the issuer's form, and an access token whose subject is the
 * person and whose roles are the person's. Over real HTTP, as a browser would go.
 */
class OperatorSignInTest {

  static final String REDIRECT = "https://127.0.0.1:18443/login/oauth2/code/fencepost";
  static ConfigurableApplicationContext issuer;
  static String baseUrl;

  @BeforeAll
  static void start() {
    String encoded = PasswordEncoderFactories.createDelegatingPasswordEncoder().encode("s3cret-a");
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--management.server.port=0");
    args.addAll(IdentityIssuerHttpTest.WORKER_RECONCILER_PROXY_SECRETS);
    args.addAll(IdentityIssuerHttpTest.OPERATOR_SECRET);
    args.add("--fencepost.issuer.users.alice.password=" + encoded);
    args.add("--fencepost.issuer.users.alice.roles=OPERATOR");
    args.add("--fencepost.issuer.console.redirect-uris=" + REDIRECT);
    issuer = IdentityIssuerApplication.application().run(args.toArray(String[]::new));
    baseUrl = "http://127.0.0.1:" + issuer.getEnvironment().getProperty("local.server.port");
  }

  @AfterAll
  static void stop() {
    issuer.close();
  }

  @Test
  void aPersonSignsInAndTheTokenNamesThePersonWithTheirRoles() throws Exception {
    HttpClient browser = browser();
    String verifier = "v".repeat(20) + System.nanoTime() + "-verifier-of-enough-length";
    String code = authorize(browser, "alice", "s3cret-a", challenge(verifier));
    assertThat(code).isNotNull();

    HttpResponse<String> token =
        post(
            browser,
            "/oauth2/token",
            "grant_type=authorization_code&client_id=operator-console&code="
                + enc(code)
                + "&redirect_uri="
                + enc(REDIRECT)
                + "&code_verifier="
                + enc(verifier));
    assertThat(token.statusCode()).as(token.body()).isEqualTo(200);
    Jwt jwt =
        NimbusJwtDecoder.withJwkSetUri(baseUrl + "/oauth2/jwks")
            .build()
            .decode(field(token.body(), "access_token"));
    assertThat(jwt.getSubject()).isEqualTo("alice");
    assertThat(jwt.getClaimAsStringList("roles")).containsExactly("OPERATOR");
    assertThat(jwt.getAudience()).containsExactly("fencepost");
    // Public client: nothing that outlives the access token is handed out.
    assertThat(token.body()).doesNotContain("refresh_token");
  }

  @Test
  void aWrongPasswordGetsNoCode() throws Exception {
    assertThat(authorize(browser(), "alice", "not-her-password", challenge("x".repeat(50))))
        .isNull();
  }

  @Test
  void theCodeIsUselessWithoutItsVerifier() throws Exception {
    HttpClient browser = browser();
    String code = authorize(browser, "alice", "s3cret-a", challenge("a".repeat(50)));
    HttpResponse<String> token =
        post(
            browser,
            "/oauth2/token",
            "grant_type=authorization_code&client_id=operator-console&code="
                + enc(code)
                + "&redirect_uri="
                + enc(REDIRECT)
                + "&code_verifier="
                + "b".repeat(50));
    assertThat(token.statusCode()).isEqualTo(400);
    assertThat(token.body()).contains("invalid_grant");
  }

  @Test
  void anAuthorizationRequestWithoutPkceIsRefused() throws Exception {
    HttpResponse<String> response =
        get(
            browser(),
            "/oauth2/authorize?response_type=code&client_id=operator-console&scope=openid"
                + "&redirect_uri="
                + enc(REDIRECT)
                + "&state=s1");
    // Refused before any sign-in: back to the client with an error, never a code.
    String location = response.headers().firstValue("Location").orElse("");
    assertThat(location).doesNotContain("code=").doesNotEndWith("/login");
    assertThat(response.statusCode() == 400 || location.contains("error=invalid_request"))
        .as(response.statusCode() + " " + location)
        .isTrue();
  }

  @Test
  void aPlainPasswordStopsTheStart() {
    List<String> args = new ArrayList<>(List.of("--server.port=0", "--management.server.port=0"));
    args.addAll(IdentityIssuerHttpTest.WORKER_RECONCILER_PROXY_SECRETS);
    args.addAll(IdentityIssuerHttpTest.OPERATOR_SECRET);
    args.add("--fencepost.issuer.users.bob.password={noop}typed-as-is");
    assertThatThrownBy(
            () -> IdentityIssuerApplication.application().run(args.toArray(String[]::new)))
        .rootCause()
        .hasMessageContaining("user bob needs an encoded password");
  }

  /** Runs the browser's side of the code flow; the code, or null when no code came back. */
  private static String authorize(HttpClient browser, String user, String password, String pkce)
      throws Exception {
    String authorize =
        "/oauth2/authorize?response_type=code&client_id=operator-console&scope=openid"
            + "&redirect_uri="
            + enc(REDIRECT)
            + "&state=s1&code_challenge_method=S256&code_challenge="
            + pkce;
    HttpResponse<String> first = get(browser, authorize);
    assertThat(first.statusCode()).isEqualTo(302);
    assertThat(first.headers().firstValue("Location").orElseThrow()).endsWith("/login");
    HttpResponse<String> form = get(browser, "/login");
    Matcher csrf = Pattern.compile("name=\"_csrf\"[^>]*value=\"([^\"]+)\"").matcher(form.body());
    assertThat(csrf.find()).as(form.body()).isTrue();
    HttpResponse<String> signIn =
        post(
            browser,
            "/login",
            "username="
                + enc(user)
                + "&password="
                + enc(password)
                + "&_csrf="
                + enc(csrf.group(1)));
    String next = signIn.headers().firstValue("Location").orElse("");
    if (signIn.statusCode() != 302 || next.contains("error")) {
      return null;
    }
    HttpResponse<String> back =
        get(browser, URI.create(next).getRawPath() + "?" + URI.create(next).getRawQuery());
    String location = back.headers().firstValue("Location").orElse("");
    Matcher code = Pattern.compile("[?&]code=([^&]+)").matcher(location);
    assertThat(location).startsWith(REDIRECT);
    return code.find() ? URLDecoder.decode(code.group(1), StandardCharsets.UTF_8) : null;
  }

  private static HttpClient browser() {
    return HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
  }

  private static HttpResponse<String> get(HttpClient browser, String path) throws Exception {
    return browser.send(
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .header("Accept", "text/html")
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(HttpClient browser, String path, String form)
      throws Exception {
    return browser.send(
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String challenge(String verifier) throws Exception {
    byte[] digest =
        MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
  }

  private static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*\"([^\"]+)\"").matcher(json);
    assertThat(m.find()).as(json).isTrue();
    return m.group(1);
  }

  private static String enc(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
