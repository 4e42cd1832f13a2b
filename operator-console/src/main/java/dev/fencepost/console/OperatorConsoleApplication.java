package dev.fencepost.console;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The operator console (docs/console.md): a person on call signs in with their own identity at the
 * identity issuer (ADR 0185) and sees payouts, locks, reconciliation findings and jobs; every
 * action goes through a service's operator endpoint with that person's token, so each audit trail
 * names them. Reads never write or lock (ADR 0186).
 *
 * <p>Configured by {@code operator-console.yaml} ({@value #CONFIG_NAME}, ADR 0110) and {@link
 * ConsoleProperties}; no credential is shipped.
 */
@SpringBootApplication
@EnableConfigurationProperties(ConsoleProperties.class)
public class OperatorConsoleApplication {

  /** The console's {@code spring.config.name}: it reads {@code operator-console.yaml}. */
  public static final String CONFIG_NAME = "operator-console";

  /** The console as {@code main} starts it; tests start it the same way. */
  public static SpringApplicationBuilder application() {
    return new SpringApplicationBuilder(OperatorConsoleApplication.class)
        .properties("spring.config.name=" + CONFIG_NAME);
  }

  public static void main(String[] args) {
    application().run(args);
  }
}
