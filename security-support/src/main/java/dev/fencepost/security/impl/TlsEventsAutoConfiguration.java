package dev.fencepost.security.impl;

import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Collections;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Structured events for a server that serves TLS through an SSL bundle ({@code server.ssl.bundle},
 * ADR 0150): {@code tls.serving} once at start-up and {@code tls.bundle.reloaded} each time Boot
 * reloads the bundle because its files changed (a rotated certificate), each with the certificate's
 * subject, serial and expiry, so an operator can see which certificate a process presents. Never
 * the key. Here rather than in web-support because every application but the identity issuer has
 * this module, the jobs included.
 */
@AutoConfiguration(afterName = "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration")
@ConditionalOnProperty("server.ssl.bundle")
@ConditionalOnBean(SslBundles.class)
public final class TlsEventsAutoConfiguration {

  private static final Logger log = LoggerFactory.getLogger(TlsEventsAutoConfiguration.class);

  @Bean
  SmartInitializingSingleton tlsBundleEvents(SslBundles bundles, Environment environment) {
    return () -> {
      String name = environment.getRequiredProperty("server.ssl.bundle");
      event("tls.serving", name, bundles.getBundle(name)).log("serving TLS");
      bundles.addBundleUpdateHandler(
          name,
          bundle ->
              event("tls.bundle.reloaded", name, bundle)
                  .log("the TLS bundle's files changed: serving the new certificate"));
    };
  }

  private static org.slf4j.spi.LoggingEventBuilder event(
      String event, String name, SslBundle bundle) {
    org.slf4j.spi.LoggingEventBuilder builder =
        log.atInfo().addKeyValue("event", event).addKeyValue("bundle", name);
    X509Certificate certificate = leaf(bundle);
    if (certificate != null) {
      builder =
          builder
              .addKeyValue("subject", certificate.getSubjectX500Principal().getName())
              .addKeyValue("serial", certificate.getSerialNumber().toString(16))
              .addKeyValue("notAfter", certificate.getNotAfter().toInstant().toString());
    }
    return builder;
  }

  /** The first certificate of the bundle's key store: the one the server presents. */
  private static X509Certificate leaf(SslBundle bundle) {
    KeyStore store = bundle.getStores().getKeyStore();
    if (store == null) {
      return null;
    }
    try {
      for (String alias : Collections.list(store.aliases())) {
        Certificate certificate = store.getCertificate(alias);
        if (certificate instanceof X509Certificate x509) {
          return x509;
        }
      }
      return null;
    } catch (KeyStoreException e) {
      return null;
    }
  }
}
