package dev.fencepost.security.impl;

import dev.fencepost.security.BearerTokenSource;
import dev.fencepost.security.FencepostSecurityProperties;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.security.oauth2.client.autoconfigure.OAuth2ClientAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;

/**
 * The outbound {@link BearerTokenSource}, first configured wins: OAuth2 client credentials when the
 * registration {@code fencepost} is configured ({@code
 * spring.security.oauth2.client.registration.fencepost.*} and {@code
 * spring.security.oauth2.client.provider.fencepost.token-uri}), else the token file {@code
 * fencepost.security.client.token-file}. With neither there is no bean: callers send no token.
 */
@AutoConfiguration(after = OAuth2ClientAutoConfiguration.class)
@EnableConfigurationProperties(FencepostSecurityProperties.class)
public final class BearerTokenSourceAutoConfiguration {

  // One class, two bean methods: bean methods are registered in declaration order, so the
  // missing-bean condition of the second sees the first.
  @Bean
  @ConditionalOnProperty(
      prefix =
          "spring.security.oauth2.client.registration."
              + ClientCredentialsTokenSource.REGISTRATION_ID,
      name = "client-id")
  @ConditionalOnBean(ClientRegistrationRepository.class)
  @ConditionalOnMissingBean(BearerTokenSource.class)
  ClientCredentialsTokenSource clientCredentialsTokenSource(
      ClientRegistrationRepository registrations) {
    return new ClientCredentialsTokenSource(
        registrations, ClientCredentialsTokenSource.REGISTRATION_ID);
  }

  @Bean
  @ConditionalOnProperty(prefix = "fencepost.security.client", name = "token-file")
  @ConditionalOnMissingBean(BearerTokenSource.class)
  TokenFileSource tokenFileSource(FencepostSecurityProperties properties) {
    return new TokenFileSource(properties.getClient().getTokenFile());
  }
}
