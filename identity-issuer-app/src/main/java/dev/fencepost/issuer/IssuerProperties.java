package dev.fencepost.issuer;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The issuer's clients and token settings, under {@code fencepost.issuer}. */
@ConfigurationProperties("fencepost.issuer")
public class IssuerProperties {

  /** Audience put into every access token; the services accept only tokens naming it. */
  private String audience = "fencepost";

  /**
   * Lifetime of an access token. Short, because a token cannot be withdrawn before it expires;
   * clients ask for a new one shortly before.
   */
  private Duration tokenTtl = Duration.ofMinutes(5);

  /** The workload clients by client id. */
  private Map<String, Client> clients = new LinkedHashMap<>();

  public String getAudience() {
    return audience;
  }

  public void setAudience(String audience) {
    this.audience = audience;
  }

  public Duration getTokenTtl() {
    return tokenTtl;
  }

  public void setTokenTtl(Duration tokenTtl) {
    this.tokenTtl = tokenTtl;
  }

  public Map<String, Client> getClients() {
    return clients;
  }

  public void setClients(Map<String, Client> clients) {
    this.clients = new LinkedHashMap<>(clients);
  }

  /** One workload client. */
  public static class Client {

    /** Roles put into this client's tokens (FencepostRole names, such as PAYOUT_WORKER). */
    private Set<String> roles = new LinkedHashSet<>();

    /**
     * The client's secret. Only from the runtime environment or the command line (for example
     * SPRING_APPLICATION_JSON), never from a shipped file; kept only in encoded form.
     */
    private String secret;

    public Set<String> getRoles() {
      return roles;
    }

    public void setRoles(Set<String> roles) {
      this.roles = new LinkedHashSet<>(roles);
    }

    public String getSecret() {
      return secret;
    }

    public void setSecret(String secret) {
      this.secret = secret;
    }
  }
}
