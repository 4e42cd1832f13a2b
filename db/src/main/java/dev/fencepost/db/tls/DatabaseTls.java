package dev.fencepost.db.tls;

import com.zaxxer.hikari.HikariConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * How every PostgreSQL pool of the application protects its connection, {@code fencepost.db.tls.*}
 * (decision record 0157). The settings are pgjdbc's own ({@code sslmode}, {@code sslrootcert},
 * {@code sslcert}, {@code sslkey}, {@code sslpassword}) with pgjdbc's default SSL factory, which
 * reads PEM certificates and verifies the chain and, under {@code verify-full}, the host name of
 * the JDBC URL against the server's certificate. Nothing here implements TLS.
 *
 * <p>The default {@link Mode#REQUIRE} never sends a query or a password in clear: a server that
 * does not offer TLS is refused. It does not verify who the server is; a deployment says {@code
 * verify-full} and the CA that signs its server's certificate ({@code root-cert}), as the local
 * platform does. A TLS setting written into the JDBC URL would win over these (pgjdbc's rule), and
 * one among the pool's own data source properties ({@code spring.datasource.hikari.data-source-
 * properties.*}) would sit beside them, so either stops the application at start: these properties
 * are the one place that says how a pool protects its connection.
 */
@ConfigurationProperties("fencepost.db.tls")
public class DatabaseTls {

  /** pgjdbc's connection properties about TLS, in lower case: only this class sets them. */
  private static final Set<String> DRIVER_TLS_SETTINGS =
      Set.of(
          "ssl",
          "sslmode",
          "sslfactory",
          "sslfactoryarg",
          "sslrootcert",
          "sslcert",
          "sslkey",
          "sslpassword",
          "sslpasswordcallback",
          "sslhostnameverifier");

  /** pgjdbc's {@code sslmode} values that this application accepts. */
  public enum Mode {
    /**
     * No TLS at all. Only where something else encrypts the connection: the Cloud SQL Java
     * connector, which opens its own mutually authenticated TLS tunnel, or a sidecar proxy on
     * loopback.
     */
    DISABLE,
    /** TLS required; the server's certificate is not checked (encrypts, does not authenticate). */
    REQUIRE,
    /** TLS required; the server's chain must lead to {@code root-cert}; any host name. */
    VERIFY_CA,
    /** TLS required; the chain must lead to {@code root-cert} and name the URL's host. */
    VERIFY_FULL;

    /** The value of pgjdbc's {@code sslmode}. */
    public String sslmode() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    boolean verifiesCertificate() {
      return this == VERIFY_CA || this == VERIFY_FULL;
    }
  }

  /**
   * pgjdbc's {@code sslmode}: {@code disable}, {@code require} (the default), {@code verify-ca} or
   * {@code verify-full}. Production says {@code verify-full}. pgjdbc's {@code allow} and {@code
   * prefer} are not accepted: they fall back to a plaintext connection when TLS fails.
   */
  private Mode mode = Mode.REQUIRE;

  /**
   * The CA certificate(s), PEM, that the server's certificate must lead to (pgjdbc's {@code
   * sslrootcert}). Required by {@code verify-ca} and {@code verify-full}, refused otherwise (it
   * would be ignored). Not a secret: a path to a mounted public file.
   */
  private Path rootCert;

  /**
   * The client certificate, PEM, for certificate authentication (pgjdbc's {@code sslcert}); with
   * {@code client-key}. Unset (the default): the application logs in with its password only.
   */
  private Path clientCert;

  /**
   * The client certificate's private key (pgjdbc's {@code sslkey}): PKCS#8 DER ({@code .pk8}), or a
   * PKCS#12 file ({@code .p12}) holding certificate and key. Read from a mounted secret, never
   * shipped.
   */
  private Path clientKey;

  /**
   * The password of an encrypted {@code client-key} (pgjdbc's {@code sslpassword}), from the
   * environment or a secret. Unset: the key is not encrypted.
   */
  private String clientKeyPassword;

  /**
   * Applies these settings to {@code pool}, which must not have started yet.
   *
   * @throws IllegalStateException when the settings contradict each other or name a file that
   *     cannot be read
   */
  public void applyTo(HikariConfig pool) {
    validate();
    refuseTlsSettingsElsewhere(pool);
    // Boot's pools pass these to the driver by pgjdbc's URL names; a pool built on a
    // PGSimpleDataSource sets them as its bean properties, which are spelt differently.
    boolean driverProperties = pool.getDataSourceClassName() == null;
    pool.addDataSourceProperty(driverProperties ? "sslmode" : "sslMode", mode.sslmode());
    if (rootCert != null) {
      pool.addDataSourceProperty(driverProperties ? "sslrootcert" : "sslRootCert", path(rootCert));
    }
    if (clientCert != null) {
      pool.addDataSourceProperty(driverProperties ? "sslcert" : "sslCert", path(clientCert));
    }
    if (clientKey != null) {
      pool.addDataSourceProperty(driverProperties ? "sslkey" : "sslKey", path(clientKey));
    }
    if (clientKeyPassword != null) {
      pool.addDataSourceProperty(
          driverProperties ? "sslpassword" : "sslPassword", clientKeyPassword);
    }
  }

  void validate() {
    if (mode == null) {
      throw new IllegalStateException(
          "fencepost.db.tls.mode must be one of disable, require, verify-ca, verify-full");
    }
    if (mode.verifiesCertificate()) {
      if (rootCert == null) {
        throw new IllegalStateException(
            "fencepost.db.tls.root-cert is required with fencepost.db.tls.mode="
                + mode.sslmode()
                + ": the CA certificate (PEM) that signs the database server's certificate");
      }
      requireReadable("root-cert", rootCert);
    } else if (rootCert != null) {
      throw new IllegalStateException(
          "fencepost.db.tls.root-cert is set but fencepost.db.tls.mode="
              + mode.sslmode()
              + " does not verify the server's certificate: say verify-full (or verify-ca)");
    }
    if (mode == Mode.DISABLE && (clientCert != null || clientKey != null)) {
      throw new IllegalStateException(
          "fencepost.db.tls.client-cert and client-key need TLS, but fencepost.db.tls.mode is"
              + " disable");
    }
    if (clientCert != null && clientKey == null) {
      throw new IllegalStateException(
          "fencepost.db.tls.client-cert is set without fencepost.db.tls.client-key");
    }
    if (clientCert != null) {
      requireReadable("client-cert", clientCert);
    }
    if (clientKey != null) {
      requireReadable("client-key", clientKey);
    }
    if (clientKeyPassword != null && clientKey == null) {
      throw new IllegalStateException(
          "fencepost.db.tls.client-key-password is set without fencepost.db.tls.client-key");
    }
  }

  private static void refuseTlsSettingsElsewhere(HikariConfig pool) {
    String url = pool.getJdbcUrl();
    int query = url == null ? -1 : url.indexOf('?');
    if (query >= 0) {
      for (String parameter : url.substring(query + 1).split("&")) {
        String name = parameter.split("=", 2)[0].toLowerCase(Locale.ROOT);
        if (DRIVER_TLS_SETTINGS.contains(name)) {
          // The URL itself is not repeated: it may carry a password.
          throw new IllegalStateException(
              "the JDBC URL sets "
                  + name
                  + ", which would override fencepost.db.tls.*: remove it from the URL and say"
                  + " fencepost.db.tls.mode (and root-cert) instead");
        }
      }
    }
    for (Object key : pool.getDataSourceProperties().keySet()) {
      if (DRIVER_TLS_SETTINGS.contains(key.toString().toLowerCase(Locale.ROOT))) {
        throw new IllegalStateException(
            "the pool's data source property "
                + key
                + " is a TLS setting of its own: remove it and say fencepost.db.tls.* instead");
      }
    }
  }

  private static void requireReadable(String name, Path file) {
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new IllegalStateException(
          "fencepost.db.tls." + name + " (" + file + ") is not a readable file");
    }
  }

  private static String path(Path file) {
    return file.toAbsolutePath().toString();
  }

  public Mode getMode() {
    return mode;
  }

  public void setMode(Mode mode) {
    this.mode = mode;
  }

  public Path getRootCert() {
    return rootCert;
  }

  public void setRootCert(Path rootCert) {
    this.rootCert = rootCert;
  }

  public Path getClientCert() {
    return clientCert;
  }

  public void setClientCert(Path clientCert) {
    this.clientCert = clientCert;
  }

  public Path getClientKey() {
    return clientKey;
  }

  public void setClientKey(Path clientKey) {
    this.clientKey = clientKey;
  }

  public String getClientKeyPassword() {
    return clientKeyPassword;
  }

  public void setClientKeyPassword(String clientKeyPassword) {
    this.clientKeyPassword = clientKeyPassword;
  }
}
