package dev.fencepost.issuer;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The local identity issuer (docs/security.md): Spring Authorization Server. Each configured
 * workload client gets short-lived JWT access tokens with its roles and {@code aud=fencepost}
 * through the client-credentials grant; people (operators) sign in on its form through the operator
 * console's public client, authorization code with PKCE, and get tokens naming them with their
 * roles (ADR 0185). The services validate every token against this issuer's JWK set ({@code
 * /oauth2/jwks}).
 *
 * <p>Configured by {@code identity-issuer.yaml} ({@value #CONFIG_NAME}, ADR 0110). Client secrets
 * come only from the runtime environment or arguments: the application refuses to start when a
 * configured client has none (ADR 0130).
 */
@SpringBootApplication
@EnableConfigurationProperties(IssuerProperties.class)
public class IdentityIssuerApplication {

  /** The issuer's {@code spring.config.name}: it reads {@code identity-issuer.yaml}. */
  public static final String CONFIG_NAME = "identity-issuer";

  /** The issuer as {@code main} starts it; tests and launchers start it the same way. */
  public static SpringApplicationBuilder application() {
    return new SpringApplicationBuilder(IdentityIssuerApplication.class)
        .properties("spring.config.name=" + CONFIG_NAME);
  }

  public static void main(String[] args) {
    application().run(args);
  }
}
