package dev.fencepost.security;

import dev.fencepost.security.impl.ClientCredentialsTokenSource;
import dev.fencepost.security.impl.TokenFileSource;
import java.net.URI;
import java.nio.file.Path;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.client.registration.InMemoryClientRegistrationRepository;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;

/**
 * {@link BearerTokenSource}s built by hand, for callers outside a Spring context (the launcher,
 * tools, the lock client's builder). Inside an application the auto-configuration builds the same
 * from properties.
 */
public final class BearerTokenSources {

  private BearerTokenSources() {}

  /**
   * Tokens from the client-credentials grant at {@code tokenUri} (Spring Security's client manager:
   * cached, renewed shortly before expiry).
   */
  public static BearerTokenSource clientCredentials(
      URI tokenUri, String clientId, String clientSecret) {
    ClientRegistration registration =
        ClientRegistration.withRegistrationId(ClientCredentialsTokenSource.REGISTRATION_ID)
            .clientId(clientId)
            .clientSecret(clientSecret)
            .clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_BASIC)
            .authorizationGrantType(AuthorizationGrantType.CLIENT_CREDENTIALS)
            .tokenUri(tokenUri.toString())
            .build();
    return new ClientCredentialsTokenSource(
        new InMemoryClientRegistrationRepository(registration),
        ClientCredentialsTokenSource.REGISTRATION_ID);
  }

  /** The token in {@code file}, re-read whenever the file changes (a projected token). */
  public static BearerTokenSource tokenFile(Path file) {
    return new TokenFileSource(file);
  }
}
