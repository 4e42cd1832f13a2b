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

  /** The rules an application declares, matched in declaration order. */
  interface Rules {

    /** {@code method} on {@code pattern} is allowed to a caller with any of {@code roles}. */
    Rules allow(HttpMethod method, String pattern, FencepostRole... roles);

    /** {@code method} on {@code pattern} is allowed to any authenticated caller. */
    Rules authenticated(HttpMethod method, String pattern);

    /**
     * {@code method} on {@code pattern} is served to anyone, with or without a token. Only for
     * material that is public by nature and that callers need before they can check anything, such
     * as a JWK set of verification keys; never for an endpoint that changes state.
     */
    Rules open(HttpMethod method, String pattern);
  }
}
