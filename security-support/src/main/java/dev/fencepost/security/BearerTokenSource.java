package dev.fencepost.security;

import org.springframework.http.client.ClientHttpRequestInterceptor;

/**
 * Where an outbound caller gets the bearer token it presents to a Fencepost service.
 * Auto-configured from OAuth2 client credentials ({@code
 * spring.security.oauth2.client.registration.fencepost.*}) or from a projected service-account
 * token file ({@code fencepost.security.client.token-file}); when neither is configured there is no
 * bean, the caller sends no token and servers answer 401.
 *
 * <p>Implementations cache the token and renew it before it expires, so calling {@link
 * #currentToken()} per request is cheap. The token is a credential: never log it.
 */
@FunctionalInterface
public interface BearerTokenSource {

  /**
   * A token valid now, for an {@code Authorization: Bearer} header (callers that must tell a
   * missing token from a failed request set the header themselves).
   *
   * @throws IllegalStateException when no token can be obtained (issuer down, file unreadable)
   */
  String currentToken();

  /** For {@code RestClient} callers: sets {@code Authorization: Bearer <currentToken()>}. */
  default ClientHttpRequestInterceptor interceptor() {
    return (request, body, execution) -> {
      request.getHeaders().setBearerAuth(currentToken());
      return execution.execute(request, body);
    };
  }
}
