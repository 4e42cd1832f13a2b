package dev.fencepost.bench;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.bc.BouncyCastleProviderSingleton;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.util.Base64URL;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.Provider;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CPU cost of one grant signature and one verification (ES256 through Nimbus, as the lock
 * server and the rail proxy make them), on the JDK's provider and on Bouncy Castle's (ADR 0191):
 * single thread, {@code bench.rounds} (5) rounds of {@code bench.seconds} (2) per variant after a
 * warm-up round, median in microseconds. Run it alone on a quiet machine:
 *
 * <pre>
 * ./mvnw -B -q -pl bench -am -DskipTests package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.fencepost.bench.SignatureCost
 * </pre>
 */
public final class SignatureCost {

  private SignatureCost() {}

  interface Step {
    void run() throws Exception;
  }

  public static void main(String[] args) throws Exception {
    int rounds = Integer.getInteger("bench.rounds", 5);
    long nanos = (long) (Double.parseDouble(System.getProperty("bench.seconds", "2")) * 1e9);
    Provider bc = BouncyCastleProviderSingleton.getInstance();
    KeyFactory bcKeys = KeyFactory.getInstance("EC", bc);
    ECKey key = new ECKeyGenerator(Curve.P_256).keyID("k1").generate();
    // A grant's signing input is about this long (header and claims, base64url).
    byte[] input = "x".repeat(330).getBytes(StandardCharsets.US_ASCII);
    JWSHeader header = new JWSHeader(JWSAlgorithm.ES256);

    JWSSigner jdkSigner = new ECDSASigner(key);
    ECDSASigner bcOnJdkKey = new ECDSASigner(key.toECPrivateKey());
    bcOnJdkKey.getJCAContext().setProvider(bc);
    ECDSASigner bcSigner =
        new ECDSASigner((ECPrivateKey) bcKeys.translateKey(key.toECPrivateKey()));
    bcSigner.getJCAContext().setProvider(bc);
    Base64URL signature = jdkSigner.sign(header, input);
    JWSVerifier jdkVerifier = new ECDSAVerifier(key.toECPublicKey());
    ECDSAVerifier bcVerifier =
        new ECDSAVerifier((ECPublicKey) bcKeys.translateKey(key.toECPublicKey()));
    bcVerifier.getJCAContext().setProvider(bc);
    if (!bcVerifier.verify(header, input, bcSigner.sign(header, input))
        || !jdkVerifier.verify(header, input, bcSigner.sign(header, input))) {
      throw new IllegalStateException("a Bouncy Castle signature did not verify");
    }

    Map<String, Step> variants = new LinkedHashMap<>();
    variants.put("sign, JDK provider", () -> jdkSigner.sign(header, input));
    variants.put("sign, Bouncy Castle on a JDK key", () -> bcOnJdkKey.sign(header, input));
    variants.put("sign, Bouncy Castle on its own key", () -> bcSigner.sign(header, input));
    variants.put("verify, JDK provider", () -> jdkVerifier.verify(header, input, signature));
    variants.put(
        "verify, Bouncy Castle on its own key", () -> bcVerifier.verify(header, input, signature));

    System.out.printf(
        "Java %s, %d cores, load %s; %d rounds of %.1f s per variant%n",
        System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(),
        Provenance.loadAverage(),
        rounds,
        nanos / 1e9);
    for (Map.Entry<String, Step> v : variants.entrySet()) {
      List<Double> micros = new ArrayList<>();
      for (int r = 0; r <= rounds; r++) {
        long n = 0;
        long start = System.nanoTime();
        while (System.nanoTime() - start < nanos) {
          v.getValue().run();
          n++;
        }
        if (r > 0) { // round 0 warms up
          micros.add((System.nanoTime() - start) / 1e3 / n);
        }
      }
      Collections.sort(micros);
      System.out.printf(
          "%-38s median %7.0f us (rounds %s)%n",
          v.getKey(),
          micros.get(micros.size() / 2),
          micros.stream().map(m -> String.format("%.0f", m)).toList());
    }
  }
}
