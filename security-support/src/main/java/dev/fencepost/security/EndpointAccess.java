package dev.fencepost.security;

import org.springframework.http.HttpMethod;

/**
 * An application's endpoint rules: the one bean in which it says who may call what. Anything not
 * declared here is denied (403 to an authenticated caller, 401 to an anonymous one). On the
 * management endpoints {@code health} and {@code prometheus} are open and every other one needs
 * {@link FencepostRole#OPERATOR}, whatever the application declares.
 *
 * <pre>{@code
 * @Bean
 * EndpointAccess lockEndpoints() {
 *   return rules -> rules
 *       .allow(HttpMethod.POST, "/v1/sessions", FencepostRole.PAYOUT_WORKER, FencepostRole.RECONCILER)
 *       .authenticated(HttpMethod.GET, "/v1/locks/{key}")
 *       .allow(HttpMethod.POST, "/v1/admin/locks/{key}/revoke", FencepostRole.OPERATOR);
 * }
 * }</pre>
 *
 * Patterns are Spring path patterns ({@code {var}}, {@code *}, {@code **}).
 */
@FunctionalInterface
public interface EndpointAccess {

  /** Declares this application's rules on {@code rules}. */
  void declare(Rules rules);

  /**
   * For an application whose own endpoints are not secured yet: every request is let through
   * without a token and a WARN {@code security.inbound.unsecured} event is logged at start. It
   * exists so an application can carry outbound credentials (and this module) before its own
   * endpoints are secured; replace it by real rules (docs/security.md lists who still uses it).
   */
  static EndpointAccess notYetSecured() {
    return NotYetSecured.INSTANCE;
  }

  /** The rules an application declares, matched in declaration order. */
  interface Rules {

    /** {@code method} on {@code pattern} is allowed to a caller with any of {@code roles}. */
    Rules allow(HttpMethod method, String pattern, FencepostRole... roles);

    /** {@code method} on {@code pattern} is allowed to any authenticated caller. */
    Rules authenticated(HttpMethod method, String pattern);
  }

  /** The marker of {@link #notYetSecured()}. */
  enum NotYetSecured implements EndpointAccess {
    INSTANCE;

    @Override
    public void declare(Rules rules) {}
  }
}
