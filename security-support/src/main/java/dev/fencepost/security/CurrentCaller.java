package dev.fencepost.security;

import java.time.Instant;
import java.util.Optional;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.server.resource.authentication.AbstractOAuth2TokenAuthenticationToken;

/**
 * Who is calling, for audit and ownership: the authenticated principal of the request being served.
 * Its name is the token's {@code sub} claim unless {@code fencepost.security.principal-claim} names
 * another. Application code asks this instead of trusting a name sent in a request body.
 */
public final class CurrentCaller {

  private CurrentCaller() {}

  /** The authenticated principal's name, if the current request carries a valid token. */
  public static Optional<String> name() {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    if (authentication == null
        || !authentication.isAuthenticated()
        || "anonymousUser".equals(authentication.getPrincipal())) {
      return Optional.empty();
    }
    return Optional.ofNullable(authentication.getName());
  }

  /**
   * The authenticated principal's name.
   *
   * @throws IllegalStateException when the current request is not authenticated (a rule is missing:
   *     endpoints that need a caller must require authentication)
   */
  public static String requireName() {
    return name()
        .orElseThrow(() -> new IllegalStateException("no authenticated caller for this request"));
  }

  /**
   * When the credential the current request was authenticated with stops being valid: the bearer
   * token's {@code exp}. Empty when the caller is not authenticated by a token or its token has no
   * expiry. Whatever outlives the request on the strength of this authentication (a stream) must
   * end by then.
   */
  public static Optional<Instant> credentialsExpireAt() {
    if (name().isEmpty()
        || !(SecurityContextHolder.getContext().getAuthentication()
            instanceof AbstractOAuth2TokenAuthenticationToken<?> token)) {
      return Optional.empty();
    }
    return Optional.ofNullable(token.getToken().getExpiresAt());
  }

  /** Whether the current caller is authenticated and has {@code role}. */
  public static boolean hasRole(FencepostRole role) {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    return name().isPresent()
        && authentication.getAuthorities().stream()
            .anyMatch(a -> role.authority().equals(a.getAuthority()));
  }
}
