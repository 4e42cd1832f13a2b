package dev.fencepost.console;

import jakarta.servlet.http.HttpServletRequest;
import java.time.Instant;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClient;
import org.springframework.security.oauth2.client.web.OAuth2AuthorizedClientRepository;
import org.springframework.stereotype.Component;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The signed-in person's access token, the only credential the console ever presents (ADR 0185). It
 * is the token the issuer gave at sign-in; there is no refresh token (the console is a public
 * client), so a token close to its expiry is not used: {@link SignInExpiredException} sends the
 * person through the issuer again.
 */
@Component
public class OperatorToken {

  private final OAuth2AuthorizedClientRepository clients;
  private final ConsoleProperties properties;

  public OperatorToken(OAuth2AuthorizedClientRepository clients, ConsoleProperties properties) {
    this.clients = clients;
    this.properties = properties;
  }

  /** The current person's token, or {@link SignInExpiredException}. */
  public String current() {
    Authentication person = SecurityContextHolder.getContext().getAuthentication();
    HttpServletRequest request =
        ((ServletRequestAttributes) RequestContextHolder.currentRequestAttributes()).getRequest();
    OAuth2AuthorizedClient client =
        clients.loadAuthorizedClient(ConsoleSecurityConfiguration.REGISTRATION, person, request);
    if (client == null || client.getAccessToken() == null) {
      throw new SignInExpiredException();
    }
    Instant expires = client.getAccessToken().getExpiresAt();
    if (expires != null && Instant.now().plus(properties.getTokenExpiryMargin()).isAfter(expires)) {
      throw new SignInExpiredException();
    }
    return client.getAccessToken().getTokenValue();
  }

  /** The signed-in person's name (the token's subject), for the pages. */
  public static String person() {
    Authentication person = SecurityContextHolder.getContext().getAuthentication();
    return person == null ? null : person.getName();
  }
}
