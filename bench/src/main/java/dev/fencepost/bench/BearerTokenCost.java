package dev.fencepost.bench;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;
import org.springframework.security.oauth2.server.resource.web.DefaultBearerTokenResolver;
import org.springframework.security.web.firewall.StrictHttpFirewall;

/**
 * The CPU cost of the two checks every request's {@code Authorization} header goes through, with
 * JMH, each as Spring Security makes it (a regular expression) and as security-support makes it (a
 * loop over the same rule):
 *
 * <ul>
 *   <li>the firewall's rule for a header value ({@code StrictHttpFirewall.ALLOWED_HEADER_VALUES}
 *       against {@code AssignedAndNotControl.HEADER_VALUES}, ADR 0192);
 *   <li>finding the token ({@code DefaultBearerTokenResolver} against {@code BearerHeaderResolver},
 *       ADR 0223).
 * </ul>
 *
 * The token is {@code tokenLength} characters long, 684 by default: the local identity issuer's
 * client-credentials token (RS256) that every bench client and local worker presents. One thread,
 * one fork, 3 warm-up and 5 measured iterations of 2 s, nanoseconds per call. Run it alone on a
 * quiet machine:
 *
 * <pre>
 * ./mvnw -B -q -pl bench -am -DskipTests package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.fencepost.bench.BearerTokenCost
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class BearerTokenCost {

  private static final String ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  @Param("684")
  public int tokenLength;

  private final BearerTokenResolver spring = new DefaultBearerTokenResolver();
  private final Predicate<String> springFirewall = StrictHttpFirewall.ALLOWED_HEADER_VALUES;
  private BearerTokenResolver ours;
  private Predicate<String> ourFirewall;
  private String header;
  private HttpServletRequest request;

  public static void main(String[] args) throws Exception {
    Provenance.runJmh(BearerTokenCost.class, args);
  }

  @Setup
  public void setUp() throws ReflectiveOperationException {
    ours = ourResolver();
    ourFirewall = ourFirewallRule();
    String token = jwtShaped(tokenLength);
    header = "Bearer " + token;
    request = new AuthorizationOnly(header);
    if (!token.equals(spring.resolve(request)) || !token.equals(ours.resolve(request))) {
      throw new IllegalStateException("a resolver did not return the token");
    }
    if (!springFirewall.test(header) || !ourFirewall.test(header)) {
      throw new IllegalStateException("a firewall rule refused the header");
    }
  }

  @Benchmark
  public boolean firewallSpringRegularExpression() {
    return springFirewall.test(header);
  }

  @Benchmark
  public boolean firewallSecuritySupportLoop() {
    return ourFirewall.test(header);
  }

  @Benchmark
  public String resolverSpringRegularExpression() {
    return spring.resolve(request);
  }

  @Benchmark
  public String resolverSecuritySupportLoop() {
    return ours.resolve(request);
  }

  /*
   * Our resolver and firewall rule are package-private in security-support's impl, as the chain's
   * other parts are; a benchmark on the class path may open them, and then calls them through
   * Spring's and the JDK's interfaces.
   */

  private static BearerTokenResolver ourResolver() throws ReflectiveOperationException {
    Constructor<?> constructor =
        Class.forName("dev.fencepost.security.impl.BearerHeaderResolver").getDeclaredConstructor();
    constructor.setAccessible(true);
    return (BearerTokenResolver) constructor.newInstance();
  }

  @SuppressWarnings("unchecked")
  private static Predicate<String> ourFirewallRule() throws ReflectiveOperationException {
    Field values =
        Class.forName("dev.fencepost.security.impl.AssignedAndNotControl")
            .getDeclaredField("HEADER_VALUES");
    values.setAccessible(true);
    return (Predicate<String>) values.get(null);
  }

  /**
   * A request that has an {@code Authorization} header and nothing else the resolvers ask for
   * (their query and form parameters are off); any other call fails, so the benchmark cannot
   * measure a path it does not mean to.
   */
  private static final class AuthorizationOnly extends HttpServletRequestWrapper {
    private final String authorization;

    AuthorizationOnly(String authorization) {
      super(
          (HttpServletRequest)
              Proxy.newProxyInstance(
                  BearerTokenCost.class.getClassLoader(),
                  new Class<?>[] {HttpServletRequest.class},
                  (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                  }));
      this.authorization = authorization;
    }

    @Override
    public String getHeader(String name) {
      return "Authorization".equalsIgnoreCase(name) ? authorization : null;
    }
  }

  /** Three base64url parts joined by dots, {@code length} characters in all. */
  private static String jwtShaped(int length) {
    SplittableRandom random = new SplittableRandom(length);
    StringBuilder token = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      boolean dot = i == length / 8 || i == length / 2;
      token.append(dot ? '.' : ALPHABET.charAt(random.nextInt(ALPHABET.length())));
    }
    return token.toString();
  }
}
