package dev.fencepost.security;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Identity settings of a Fencepost application, under {@code fencepost.security}. Which keys sign
 * tokens is Boot's {@code spring.security.oauth2.resourceserver.jwt.jwk-set-uri} (and {@code
 * issuer-uri}); the outbound client registration is Boot's {@code
 * spring.security.oauth2.client.registration.fencepost.*}. docs/security.md.
 */
@ConfigurationProperties("fencepost.security")
public class FencepostSecurityProperties {

  /**
   * Audience every accepted token must name in its aud claim; a token minted for another service is
   * refused with 401.
   */
  private String audience = "fencepost";

  /** Claim holding the caller's roles (FencepostRole names; unknown names are ignored). */
  private String rolesClaim = "roles";

  /** Claim naming the principal: the caller's identity in audit records and session ownership. */
  private String principalClaim = "sub";

  /**
   * Roles granted by subject, for tokens without a roles claim, such as Kubernetes projected
   * service-account tokens whose sub is system:serviceaccount:NAMESPACE:NAME. In properties the key
   * needs brackets:
   * fencepost.security.subject-roles[system:serviceaccount:pay:worker]=PAYOUT_WORKER.
   */
  private Map<String, Set<FencepostRole>> subjectRoles = new LinkedHashMap<>();

  /**
   * How long a bearer token, once verified, is accepted again without checking its signature: never
   * past the token's own expiry, and at most this long, which bounds how long a token signed by a
   * key the issuer has withdrawn is still accepted. Zero verifies every request. Between 0 and 5
   * minutes (ADR 0189).
   */
  private Duration verifiedTokenTtl = Duration.ofSeconds(60);

  /** Outbound credentials other than OAuth2 client credentials. */
  private final Client client = new Client();

  public String getAudience() {
    return audience;
  }

  public void setAudience(String audience) {
    this.audience = audience;
  }

  public String getRolesClaim() {
    return rolesClaim;
  }

  public void setRolesClaim(String rolesClaim) {
    this.rolesClaim = rolesClaim;
  }

  public String getPrincipalClaim() {
    return principalClaim;
  }

  public void setPrincipalClaim(String principalClaim) {
    this.principalClaim = principalClaim;
  }

  public Map<String, Set<FencepostRole>> getSubjectRoles() {
    return subjectRoles;
  }

  public void setSubjectRoles(Map<String, Set<FencepostRole>> subjectRoles) {
    Map<String, Set<FencepostRole>> copy = new LinkedHashMap<>();
    subjectRoles.forEach((subject, roles) -> copy.put(subject, new LinkedHashSet<>(roles)));
    this.subjectRoles = copy;
  }

  public Duration getVerifiedTokenTtl() {
    return verifiedTokenTtl;
  }

  public void setVerifiedTokenTtl(Duration verifiedTokenTtl) {
    if (verifiedTokenTtl.isNegative() || verifiedTokenTtl.compareTo(Duration.ofMinutes(5)) > 0) {
      throw new IllegalArgumentException(
          "fencepost.security.verified-token-ttl must be between 0 and 5 minutes, was "
              + verifiedTokenTtl);
    }
    this.verifiedTokenTtl = verifiedTokenTtl;
  }

  public Client getClient() {
    return client;
  }

  /** Outbound credentials from a file. */
  public static class Client {

    /**
     * A token file to present as the bearer token, re-read whenever it changes: the GKE projected
     * service-account token (for example /var/run/secrets/tokens/fencepost). Used when no
     * client-credentials registration named fencepost is configured.
     */
    private Path tokenFile;

    public Path getTokenFile() {
      return tokenFile;
    }

    public void setTokenFile(Path tokenFile) {
      this.tokenFile = tokenFile;
    }
  }
}
