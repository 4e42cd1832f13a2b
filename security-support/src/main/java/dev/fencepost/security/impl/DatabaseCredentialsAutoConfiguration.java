package dev.fencepost.security.impl;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.PropertyAccessorFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.ConfigurationPropertiesBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.annotation.Bean;
import org.springframework.util.StringUtils;

/**
 * An application does not start with a database it has no credentials for (ADR 0160): no
 * configuration the project ships holds a user name or a password, so a missing one is a deployment
 * that forgot its secret, and failing at start-up, naming the property, beats a pool that fails
 * later on every call, or one that falls back to a default account.
 *
 * <p>Every configuration-properties bean that describes a connection ({@code url}, {@code username}
 * and {@code password}: Boot's {@code spring.datasource}, the lock server's lockdb, payment-
 * resource's {@code fencepost.paydb}) and has a URL must have both, unless the {@code local}
 * profile is active (a developer's own PostgreSQL, trusting local connections). A bean that does
 * not exist is not checked: an etcd-backed lock server needs no lockdb.
 */
@AutoConfiguration
public final class DatabaseCredentialsAutoConfiguration {

  /** The profile in which a connection may go without credentials. */
  public static final String LOCAL_PROFILE = "local";

  @Bean
  static BeanPostProcessor databaseCredentialsCheck() {
    return new Check();
  }

  private static final class Check implements BeanPostProcessor, ApplicationContextAware {

    private static final Logger log =
        LoggerFactory.getLogger(DatabaseCredentialsAutoConfiguration.class);

    private ApplicationContext context;

    @Override
    public void setApplicationContext(ApplicationContext context) {
      this.context = context;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
      // After initialisation: the properties were bound before it.
      if (context.getEnvironment().matchesProfiles(LOCAL_PROFILE)) {
        return bean;
      }
      ConfigurationPropertiesBean properties =
          ConfigurationPropertiesBean.get(context, bean, beanName);
      if (properties == null) {
        return bean;
      }
      BeanWrapper wrapper = PropertyAccessorFactory.forBeanPropertyAccess(bean);
      if (!readable(wrapper, "url")
          || !readable(wrapper, "username")
          || !readable(wrapper, "password")
          || !StringUtils.hasText(text(wrapper, "url"))) {
        return bean;
      }
      String prefix = properties.getAnnotation().prefix();
      for (String credential : new String[] {"username", "password"}) {
        if (!StringUtils.hasText(text(wrapper, credential))) {
          String property = prefix + "." + credential;
          log.atError()
              .addKeyValue("event", "config.database_credentials_missing")
              .addKeyValue("property", property)
              .log("{} is not set", property);
          throw new IllegalStateException(
              property
                  + " is not set: the application connects to "
                  + text(wrapper, "url")
                  + " only with credentials from its deployment (a secret; locally the launcher"
                  + " passes the database's runtime role). No configuration ships one; only the '"
                  + LOCAL_PROFILE
                  + "' profile starts without (ADR 0160)");
        }
      }
      return bean;
    }

    private static boolean readable(BeanWrapper wrapper, String property) {
      return wrapper.isReadableProperty(property);
    }

    private static String text(BeanWrapper wrapper, String property) {
      Object value = wrapper.getPropertyValue(property);
      return value == null ? null : value.toString();
    }
  }
}
