package dev.fencepost.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencepost.launcher.LocalIdentity;
import dev.fencepost.launcher.LocalPlatform;
import dev.fencepost.launcher.OperatorConsoleStack;
import dev.fencepost.payment.AccountId;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.PayoutIntake;
import dev.fencepost.security.FencepostRole;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The console in a real browser (Debian's chromium through its chromedriver) against the whole
 * platform started once: the issuer, PostgreSQL, the lock server, the rail stub and proxy, both
 * jobs as long-running processes, and the console in this JVM. A person signs in at the issuer's
 * form; each page is checked by axe-core for serious or critical accessibility violations.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {

  static final JsonMapper JSON = JsonMapper.builder().build();
  static LocalPlatform platform;
  static OperatorConsoleStack stack;
  static ConfigurableApplicationContext console;
  static WebDriver browser;

  /** How long a lookup waits for its element to appear; see {@link #presentNow} for absence. */
  private static final Duration IMPLICIT_WAIT = Duration.ofSeconds(10);

  static String axe;
  static String consoleUrl;
  static Payout pending;
  static final String LOCKED_ACCOUNT = "acc-locked";

  @BeforeAll
  static void start() throws Exception {
    axe = Files.readString(Path.of(System.getProperty("axe.script")));
    Path work = Files.createTempDirectory("console-browser-");
    platform = LocalPlatform.builder(work).start();
    stack = OperatorConsoleStack.start(platform, Duration.ofMinutes(3), null);
    List<String> args = new ArrayList<>();
    args.add("--server.port=" + platform.consolePort());
    args.add("--server.address=127.0.0.1");
    args.add("--management.server.port=0");
    args.add("--logging.structured.format.console=");
    args.add("--spring.autoconfigure.exclude=" + ConsoleSecurityTest.NOT_THE_CONSOLES);
    args.addAll(platform.tls().serverArgs());
    stack.consoleProperties().forEach((k, v) -> args.add("--" + k + "=" + v));
    console = OperatorConsoleApplication.application().run(args.toArray(String[]::new));
    consoleUrl = platform.consoleUrl();

    PayoutIntake intake = new PayoutIntake(platform.paydb().dataSource(), "console-test");
    intake.createAccount(AccountId.of("acc-00001"), 100_000);
    intake.createAccount(AccountId.of(LOCKED_ACCOUNT), 100_000);
    pending = intake.createPendingPayout(AccountId.of("acc-00001"), 1_234, "EUR", "ben-1");
    intake.createPendingPayout(AccountId.of("acc-00001"), 4_321, "EUR", "ben-2");

    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments(
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1366,900");
    // The run's CA is trusted by this JVM, not by chromium's own store: the browser is the one
    // client here that does not verify the certificate (every service call does).
    options.setAcceptInsecureCerts(true);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File("/usr/bin/chromedriver"))
            .usingAnyFreePort()
            .build();
    browser = new ChromeDriver(service, options);
    // A form's click can return before the page its POST redirects to has loaded (seen on a loaded
    // machine): every lookup waits for its element to appear, up to this, instead of failing at
    // once.
    browser.manage().timeouts().implicitlyWait(IMPLICIT_WAIT);
    browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.quit();
    }
    if (console != null) {
      console.close();
    }
    if (stack != null) {
      stack.close();
    }
    if (platform != null) {
      platform.close();
    }
  }

  @Test
  @Order(1)
  void anUnauthenticatedVisitorSeesOnlyTheSignInPage() {
    for (String page : List.of("/", "/locks", "/payouts", "/findings", "/jobs")) {
      browser.get(consoleUrl + page);
      assertThat(browser.getCurrentUrl()).isEqualTo(consoleUrl + "/login");
    }
    assertThat(browser.findElement(By.id("sign-in")).getText()).contains("Sign in");
    assertThat(presentNow(By.cssSelector("nav"))).isEmpty();
    accessible("sign-in");
  }

  @Test
  @Order(2)
  void anOperatorSignsInWithTheirOwnIdentity() {
    signIn(LocalIdentity.OPERATOR);
    // Back where the visitor was first sent away from (the last page tried above).
    assertThat(browser.getCurrentUrl()).startsWith(consoleUrl + "/jobs");
    assertThat(browser.findElement(By.id("person")).getText()).isEqualTo("alice");
    browser.get(consoleUrl + "/");
    assertThat(browser.findElement(By.id("states")).getText()).contains("PENDING");
    assertThat(browser.findElement(By.id("health")).getText())
        .contains("Lock server")
        .contains("UP");
    assertThat(browser.findElement(By.id("alerts-not-configured")).getText())
        .contains("Not configured");
    accessible("overview");
  }

  @Test
  @Order(3)
  void findALockedAccountRevokeItWithAReasonAndSeeTheAuditRow() throws Exception {
    long token = holdLock("payout:" + LOCKED_ACCOUNT);
    browser.get(consoleUrl + "/locks");
    browser.findElement(By.id("key")).sendKeys("payout:" + LOCKED_ACCOUNT);
    browser.findElement(By.id("search")).click();
    assertThat(browser.findElement(By.id("lock-held")).getText()).isEqualTo("yes");
    assertThat(browser.findElement(By.id("lock-principal")).getText()).isEqualTo("payout-worker");
    assertThat(browser.findElement(By.id("lock-token")).getText()).isEqualTo(Long.toString(token));
    accessible("locks");

    browser.findElement(By.id("reason")).sendKeys("worker wedged on the account, paged at 03:10");
    browser.findElement(By.id("revoke")).click();
    String plan = browser.findElement(By.id("what-will-happen")).getText();
    assertThat(plan).contains("payout-worker").contains(Long.toString(token)).contains("alice");
    assertThat(browser.findElement(By.id("confirm-reason")).getText())
        .isEqualTo("worker wedged on the account, paged at 03:10");
    accessible("lock-confirm");

    browser.findElement(By.id("confirm")).click();
    assertThat(browser.findElement(By.id("revoked")).getText()).contains(Long.toString(token));
    WebElement audit = browser.findElement(By.id("audit"));
    assertThat(audit.findElement(By.cssSelector(".audit-operator")).getText()).isEqualTo("alice");
    assertThat(audit.findElement(By.cssSelector(".audit-reason")).getText())
        .isEqualTo("worker wedged on the account, paged at 03:10");
    accessible("lock-revoked");
  }

  @Test
  @Order(4)
  void cancelAPayoutThenSeeTheCancelRefusedForTheTerminalPayout() {
    browser.get(consoleUrl + "/payouts?state=PENDING");
    assertThat(browser.findElement(By.id("payouts")).getText()).contains(pending.id().toString());
    accessible("payouts");

    cancel("customer withdrew the request");
    assertThat(browser.findElement(By.cssSelector(".done")).getText())
        .contains("now ABANDONED")
        .contains("alice");
    assertThat(browser.findElement(By.id("payout-state")).getText()).isEqualTo("ABANDONED");
    assertThat(browser.findElement(By.id("history")).getText())
        .contains("OPERATOR")
        .contains("alice")
        .contains("customer withdrew the request");
    accessible("payout");

    // Again, now that it is terminal: the service refuses, and says so.
    cancel("second try");
    assertThat(browser.findElement(By.cssSelector(".error")).getText())
        .contains("Refused by the reconciliation service")
        .contains("ILLEGAL_TRANSITION");
    assertThat(browser.findElement(By.id("payout-state")).getText()).isEqualTo("ABANDONED");
  }

  @Test
  @Order(5)
  void launchAReconciliationRunAndWatchItComplete() {
    browser.get(consoleUrl + "/jobs");
    accessible("jobs");
    browser.findElement(By.id("launch-reconciliationJob")).click();
    assertThat(browser.findElement(By.id("what-will-happen")).getText()).contains("alice");
    accessible("job-confirm");
    browser.findElement(By.id("confirm")).click();
    String launched = browser.findElement(By.id("launched")).getText();
    Matcher id = Pattern.compile("execution (\\d+)").matcher(launched);
    assertThat(id.find()).as(launched).isTrue();
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              browser.navigate().refresh();
              return browser
                  .findElement(By.id("reconciliationJob-executions"))
                  .findElement(By.cssSelector("tbody tr .status"))
                  .getText()
                  .equals("COMPLETED");
            });
    browser.get(consoleUrl + "/findings");
    assertThat(browser.findElement(By.id("run-verdict")).getText()).isNotBlank();
    accessible("findings");
    browser.get(consoleUrl + "/");
    assertThat(browser.findElement(By.id("verdict")).getText()).isNotBlank();
  }

  @Test
  @Order(6)
  void acknowledgeAFindingAndSeeItInItsAuditTrail() throws Exception {
    // A movement on the rail that no payout made: the run pages with MOVEMENT_WITHOUT_PAYOUT.
    String reference = "fp-" + UUID.randomUUID().toString().replace("-", "");
    HttpClient http = HttpClient.newHttpClient();
    post(
        http,
        platform.tokens(FencepostRole.RAIL_PROXY).currentToken(),
        platform.railStub().baseUrl() + "/rail/payments",
        Map.of(
            "clientReference",
            reference,
            "amountMinor",
            1_234,
            "currency",
            "EUR",
            "beneficiaryRef",
            "ben-nobody"));
    Instant now = Instant.now();
    post(
        http,
        platform.tokens(FencepostRole.OPERATOR).currentToken(),
        stack.reconciliation().managementUrl() + "/actuator/batchjobs/reconciliationJob",
        Map.of(
            "parameters",
            "windowFrom=" + now.minusSeconds(60) + ",windowTo=" + now.plusSeconds(60)));
    By row = By.xpath("//tr[td[@class='subject' and text()='" + reference + "']]");
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              browser.get(consoleUrl + "/findings?status=OPEN&severity=PAGE");
              return !presentNow(row).isEmpty();
            });
    assertThat(browser.findElement(row).getText()).contains("MOVEMENT_WITHOUT_PAYOUT");
    accessible("findings");

    browser.findElement(row).findElement(By.tagName("a")).click();
    assertThat(browser.findElement(By.id("finding-status")).getText()).isEqualTo("OPEN");
    assertThat(browser.findElement(By.id("trail")).getText()).contains("RECONCILER");
    accessible("finding");

    acknowledge("taking it: checking the movement with the rail");
    assertThat(browser.findElement(By.id("what-will-happen")).getText())
        .contains("OPEN")
        .contains("alice");
    assertThat(browser.findElement(By.id("confirm-reason")).getText())
        .isEqualTo("taking it: checking the movement with the rail");
    accessible("finding-confirm");
    browser.findElement(By.id("confirm")).click();
    // The click returns before the POST's redirect has loaded on a busy machine: wait for the page.
    awaitElement(By.cssSelector(".done"));
    assertThat(browser.findElement(By.cssSelector(".done")).getText())
        .contains("now ACKNOWLEDGED")
        .contains("alice");
    assertThat(browser.findElement(By.id("finding-status")).getText()).isEqualTo("ACKNOWLEDGED");
    List<WebElement> trail = browser.findElements(By.cssSelector("#trail tbody tr"));
    WebElement last = trail.get(trail.size() - 1);
    assertThat(last.findElement(By.cssSelector(".trail-to")).getText()).isEqualTo("ACKNOWLEDGED");
    assertThat(last.findElement(By.cssSelector(".trail-actor")).getText()).isEqualTo("alice");
    assertThat(last.findElement(By.cssSelector(".trail-reason")).getText())
        .isEqualTo("taking it: checking the movement with the rail");

    // Again, now that it is acknowledged: the service refuses with its own words, and says so.
    acknowledge("");
    browser.findElement(By.id("confirm")).click();
    awaitElement(By.cssSelector(".error"));
    assertThat(browser.findElement(By.cssSelector(".error")).getText())
        .contains("Refused by the reconciliation service")
        .contains("cannot be ACKNOWLEDGED")
        .contains("ILLEGAL_TRANSITION");
    assertThat(browser.findElement(By.id("finding-status")).getText()).isEqualTo("ACKNOWLEDGED");
    assertThat(browser.findElements(By.cssSelector("#trail tbody tr"))).hasSameSizeAs(trail);
  }

  @Test
  @Order(7)
  void aPersonWithoutOperatorIsShownNothing() {
    browser.findElement(By.cssSelector(".signout button")).click();
    // Signed out of the console; the issuer's own session is ended by dropping its cookie.
    browser.get(platform.identity().issuerUrl() + "/login");
    browser.manage().deleteAllCookies();
    signIn(LocalIdentity.NON_OPERATOR);
    assertThat(browser.findElement(By.id("refusal")).getText())
        .contains("does not hold the OPERATOR role");
    browser.get(consoleUrl + "/payouts");
    assertThat(browser.findElement(By.id("refusal")).isDisplayed()).isTrue();
    assertThat(presentNow(By.id("payouts"))).isEmpty();
  }

  private void cancel(String reason) {
    browser.get(consoleUrl + "/payouts/" + pending.id());
    browser.findElement(By.id("action-cancel")).click();
    browser.findElement(By.id("reason")).sendKeys(reason);
    browser.findElement(By.id("act")).click();
    assertThat(browser.findElement(By.id("what-will-happen")).getText()).contains("alice");
    accessible("payout-confirm");
    browser.findElement(By.id("confirm")).click();
  }

  /**
   * What the page shows of {@code element} now, without the implicit wait: for a check that
   * something is absent, made once the page is known to be loaded (an element of it found first),
   * which would otherwise always wait out the implicit wait.
   */
  private static List<WebElement> presentNow(By element) {
    browser.manage().timeouts().implicitlyWait(Duration.ZERO);
    try {
      return browser.findElements(element);
    } finally {
      browser.manage().timeouts().implicitlyWait(IMPLICIT_WAIT);
    }
  }

  /** Waits until the page in the browser shows {@code element}. */
  private static void awaitElement(By element) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> !browser.findElements(element).isEmpty());
  }

  /** From the finding shown: acknowledge with {@code reason}, up to the confirmation page. */
  private void acknowledge(String reason) {
    browser.findElement(By.id("action-acknowledge")).click();
    browser.findElement(By.id("reason")).sendKeys(reason);
    browser.findElement(By.id("act")).click();
  }

  private static void signIn(String username) {
    browser.get(consoleUrl + "/login");
    browser.findElement(By.id("sign-in")).click();
    // The issuer's own form.
    browser.findElement(By.id("username")).sendKeys(username);
    browser
        .findElement(By.id("password"))
        .sendKeys(platform.identity().person(username).password());
    browser.findElement(By.cssSelector("button[type=submit]")).click();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> browser.getCurrentUrl().startsWith(consoleUrl));
    assertThat(browser.getCurrentUrl()).as(browser.getPageSource()).doesNotContain("/login");
  }

  /** No serious or critical axe-core violation on the page shown; its screenshot when asked. */
  @SuppressWarnings("unchecked")
  private static void accessible(String page) {
    JavascriptExecutor js = (JavascriptExecutor) browser;
    js.executeScript(axe);
    String violations =
        (String)
            js.executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                    + "axe.run(document).then(r => done(JSON.stringify(r.violations)))"
                    + ".catch(e => done(JSON.stringify([{id: 'axe-error', impact: 'critical',"
                    + " help: String(e)}])));");
    List<String> serious = new ArrayList<>();
    for (JsonNode v : JSON.readTree(violations)) {
      String impact = v.path("impact").asString("");
      if (impact.equals("serious") || impact.equals("critical")) {
        serious.add(
            v.path("id").asString()
                + " ("
                + impact
                + "): "
                + v.path("help").asString()
                + " "
                + v.path("nodes").toString());
      }
    }
    assertThat(serious).as("axe-core on " + page).isEmpty();
    String dir = System.getProperty("console.screenshots", "");
    if (!dir.isBlank()) {
      try {
        Path target = Path.of(dir).resolve(page + ".png");
        Files.createDirectories(target.getParent());
        Files.write(target, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  /** A worker's session holding {@code key}: the lock the operator finds. Returns its token. */
  private static long holdLock(String key) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String token = platform.tokens(FencepostRole.PAYOUT_WORKER).currentToken();
    String base = platform.lockServer().baseUrl();
    JsonNode session =
        post(
            http,
            token,
            base + "/v1/sessions",
            Map.of("owner", "stuck-worker", "ttlMillis", 600_000));
    JsonNode grant =
        post(
            http,
            token,
            base + "/v1/locks/" + key + "/acquire",
            Map.of("sessionId", session.get("sessionId").asString(), "waitMillis", 1000));
    return grant.get("token").asLong();
  }

  private static JsonNode post(HttpClient http, String token, String url, Map<String, ?> body)
      throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isBetween(200, 299);
    return JSON.readTree(response.body());
  }
}
