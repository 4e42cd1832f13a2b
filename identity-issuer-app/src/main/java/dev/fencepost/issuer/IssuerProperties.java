package dev.fencepost.issuer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
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

  /**
   * People who sign in with a user name and password (operators, for the operator console), by user
   * name; the user name is the subject of their tokens. Empty by default: without people the issuer
   * serves no browser sign-in at all.
   */
  private Map<String, User> users = new LinkedHashMap<>();

  /** The operator console's client (authorization code with PKCE, no secret). */
  private Console console = new Console();

  public Map<String, User> getUsers() {
    return users;
  }

  public void setUsers(Map<String, User> users) {
    this.users = new LinkedHashMap<>(users);
  }

  public Console getConsole() {
    return console;
  }

  public void setConsole(Console console) {
    this.console = console;
  }

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

  /** One person who signs in (ADR 0185). */
  public static class User {

    /**
     * Roles put into this person's tokens (FencepostRole names, such as OPERATOR); may be empty.
     */
    private Set<String> roles = new LinkedHashSet<>();

    /**
     * The person's password, ENCODED with its algorithm's prefix (for example {@code
     * {bcrypt}$2a$10$...}); a plain or {@code {noop}} password is refused at start. Only from the
     * runtime environment or the command line, never from a shipped file.
     */
    private String password;

    public Set<String> getRoles() {
      return roles;
    }

    public void setRoles(Set<String> roles) {
      this.roles = new LinkedHashSet<>(roles);
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }
  }

  /**
   * The operator console's client: a public client (no secret; it holds no credential of its own)
   * that must use PKCE with the authorization-code grant, and only for the people above.
   */
  public static class Console {

    /** The console's client id. */
    private String clientId = "operator-console";

    /**
     * Where the issuer may send the browser back with a code: the console's {@code
     * /login/oauth2/code/fencepost} URL(s), exactly. Empty: no console client is registered.
     */
    private List<String> redirectUris = new ArrayList<>();

    public String getClientId() {
      return clientId;
    }

    public void setClientId(String clientId) {
      this.clientId = clientId;
    }

    public List<String> getRedirectUris() {
      return redirectUris;
    }

    public void setRedirectUris(List<String> redirectUris) {
      this.redirectUris = new ArrayList<>(redirectUris);
    }
  }
}
