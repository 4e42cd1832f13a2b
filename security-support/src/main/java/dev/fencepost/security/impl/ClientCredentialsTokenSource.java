package dev.fencepost.security.impl;

import dev.fencepost.http.OutboundHttp;
import dev.fencepost.security.BearerTokenSource;
import java.time.Duration;
import java.util.List;
import org.springframework.http.converter.FormHttpMessageConverter;
import org.springframework.security.oauth2.client.AuthorizedClientServiceOAuth2AuthorizedClientManager;
import org.springframework.security.oauth2.client.InMemoryOAuth2AuthorizedClientService;
import org.springframework.security.oauth2.client.OAuth2AuthorizeRequest;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClient;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientProviderBuilder;
import org.springframework.security.oauth2.client.endpoint.RestClientClientCredentialsTokenResponseClient;
import org.springframework.security.oauth2.client.http.OAuth2ErrorResponseErrorHandler;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;
import org.springframework.security.oauth2.core.http.converter.OAuth2AccessTokenResponseHttpMessageConverter;
import org.springframework.web.client.RestClient;

/**
 * Tokens from the OAuth2 client-credentials grant of one client registration, through Spring
 * Security's {@link AuthorizedClientServiceOAuth2AuthorizedClientManager}: it caches the access
 * token and asks the issuer for a new one shortly before it expires (a minute's clock skew). Usable
 * outside a request, from any thread.
 */
public final class ClientCredentialsTokenSource implements BearerTokenSource {

  /** The registration id the auto-configuration uses. */
  public static final String REGISTRATION_ID = "fencepost";

  private final AuthorizedClientServiceOAuth2AuthorizedClientManager manager;
  private final String registrationId;

  public ClientCredentialsTokenSource(
      ClientRegistrationRepository registrations, String registrationId) {
    if (registrations.findByRegistrationId(registrationId) == null) {
      throw new IllegalArgumentException("no client registration named " + registrationId);
    }
    this.registrationId = registrationId;
    this.manager =
        new AuthorizedClientServiceOAuth2AuthorizedClientManager(
            registrations, new InMemoryOAuth2AuthorizedClientService(registrations));
    // Token requests go out over the platform's one client stack (ADR 0197), not over whatever
    // RestClient.builder() would detect on the class path with that library's defaults.
    RestClientClientCredentialsTokenResponseClient tokens =
        new RestClientClientCredentialsTokenResponseClient();
    tokens.setRestClient(
        RestClient.builder()
            .requestFactory(TokenHttp.HTTP.requestFactory())
            .messageConverters(
                List.of(
                    new FormHttpMessageConverter(),
                    new OAuth2AccessTokenResponseHttpMessageConverter()))
            .defaultStatusHandler(new OAuth2ErrorResponseErrorHandler())
            .build());
    manager.setAuthorizedClientProvider(
        OAuth2AuthorizedClientProviderBuilder.builder()
            .clientCredentials(c -> c.accessTokenResponseClient(tokens))
            .build());
  }

  /** The token fetches' client, one per JVM (built on first use). */
  private static final class TokenHttp {
    static final OutboundHttp HTTP =
        OutboundHttp.builder()
            .connectTimeout(Duration.ofSeconds(5))
            .responseTimeout(Duration.ofSeconds(10))
            .maxConnections(4)
            .build();
  }

  @Override
  public String currentToken() {
    OAuth2AuthorizedClient client =
        manager.authorize(
            OAuth2AuthorizeRequest.withClientRegistrationId(registrationId)
                .principal(registrationId)
                .build());
    if (client == null) {
      throw new IllegalStateException("no access token for client registration " + registrationId);
    }
    return client.getAccessToken().getTokenValue();
  }
}
