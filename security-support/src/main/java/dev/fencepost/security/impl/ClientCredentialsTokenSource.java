package dev.fencepost.security.impl;

import dev.fencepost.http.OutboundHttp;
import dev.fencepost.security.BearerTokenSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 * Security's {@link AuthorizedClientServiceOAuth2AuthorizedClientManager}. Usable outside a
 * request, from any thread.
 *
 * <p>The token is kept here and handed out from memory until {@link #RENEW_AHEAD} before it
 * expires. Then exactly one caller renews it while every other caller goes on with the old token,
 * which is still valid; only a caller with no valid token at all waits, and all such callers wait
 * for the same fetch. Asking the manager on every call renewed the token from every thread that
 * called in its last minute: in the payout benchmark the rail proxy's request threads queued behind
 * dozens of token requests to the issuer every time the token was due.
 */
public final class ClientCredentialsTokenSource implements BearerTokenSource {

  /** The registration id the auto-configuration uses. */
  public static final String REGISTRATION_ID = "fencepost";

  /** How long before its expiry a token is renewed (Spring's default clock skew). */
  static final Duration RENEW_AHEAD = Duration.ofSeconds(60);

  /** After a failed renewal of a token that is still valid, the next try waits this long. */
  static final Duration RETRY_GAP = Duration.ofSeconds(1);

  private static final Logger log = LoggerFactory.getLogger(ClientCredentialsTokenSource.class);

  private final AuthorizedClientServiceOAuth2AuthorizedClientManager manager;
  private final String registrationId;
  private final Clock clock;
  private final ReentrantLock fetching = new ReentrantLock();
  private volatile Held held;
  private volatile Instant nextRenewal = Instant.MIN;

  /** A token and when it expires (null: the issuer said nothing, so it does not). */
  private record Held(String value, Instant expiresAt) {

    boolean freshAt(Instant now) {
      return expiresAt == null || now.isBefore(expiresAt.minus(RENEW_AHEAD));
    }

    boolean validAt(Instant now) {
      return expiresAt == null || now.isBefore(expiresAt);
    }
  }

  public ClientCredentialsTokenSource(
      ClientRegistrationRepository registrations, String registrationId) {
    this(registrations, registrationId, Clock.systemUTC());
  }

  /** With the clock that decides freshness, here and in Spring's provider alike (tests). */
  public ClientCredentialsTokenSource(
      ClientRegistrationRepository registrations, String registrationId, Clock clock) {
    if (registrations.findByRegistrationId(registrationId) == null) {
      throw new IllegalArgumentException("no client registration named " + registrationId);
    }
    this.registrationId = registrationId;
    this.clock = clock;
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
    // The provider fetches a new token only when it judges the old one expired: it must judge by
    // the same clock and margin as this class, or a renewal would get the old token back.
    manager.setAuthorizedClientProvider(
        OAuth2AuthorizedClientProviderBuilder.builder()
            .clientCredentials(
                c -> c.accessTokenResponseClient(tokens).clockSkew(RENEW_AHEAD).clock(clock))
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
    Held current = held;
    Instant now = clock.instant();
    if (current != null && current.freshAt(now)) {
      return current.value();
    }
    if (current != null && current.validAt(now)) {
      // Due for renewal but still good: one caller renews, every other one goes on with it.
      if (now.isBefore(nextRenewal) || !fetching.tryLock()) {
        return current.value();
      }
      try {
        return fetch().value();
      } catch (RuntimeException e) {
        nextRenewal = clock.instant().plus(RETRY_GAP);
        log.atWarn()
            .addKeyValue("event", "security.token.renewal_failed")
            .addKeyValue("registration", registrationId)
            .addKeyValue("expiresAt", current.expiresAt())
            .log(
                "could not renew the {} token, still valid until {}: {}",
                registrationId,
                current.expiresAt(),
                e.toString());
        return current.value();
      } finally {
        fetching.unlock();
      }
    }
    // No valid token: every caller waits here, and the first one through fetches for all.
    fetching.lock();
    try {
      Held fetched = held;
      if (fetched != null && fetched.freshAt(clock.instant())) {
        return fetched.value();
      }
      return fetch().value();
    } finally {
      fetching.unlock();
    }
  }

  private Held fetch() {
    OAuth2AuthorizedClient client =
        manager.authorize(
            OAuth2AuthorizeRequest.withClientRegistrationId(registrationId)
                .principal(registrationId)
                .build());
    if (client == null) {
      throw new IllegalStateException("no access token for client registration " + registrationId);
    }
    Held fetched =
        new Held(client.getAccessToken().getTokenValue(), client.getAccessToken().getExpiresAt());
    held = fetched;
    nextRenewal = Instant.MIN;
    return fetched;
  }
}
