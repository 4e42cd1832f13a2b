package dev.fencepost.lockserver.http;

import dev.fencepost.lockserver.config.LockServerProperties;
import dev.fencepost.web.ProblemJsonAutoConfiguration;
import dev.fencepost.web.ProblemJsonExceptionHandler;
import dev.fencepost.web.RequestBodyLimitFilter;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * HTTP plumbing: the body size limit runs before anything reads a body, with the lock server's own
 * limit property (JSON is read strictly by web-support's {@code StrictJsonAutoConfiguration}).
 */
@Configuration(proxyBeanMethods = false)
class HttpConfiguration {

  /** web-support's body bound on every path, with the lock server's own limit property. */
  @Bean(RequestBodyLimitFilter.BEAN_NAME)
  FilterRegistrationBean<RequestBodyLimitFilter> requestBodyLimitFilter(
      LockServerProperties properties, ProblemJsonExceptionHandler problems) {
    return ProblemJsonAutoConfiguration.registration(
        new RequestBodyLimitFilter(properties.maxBodySize().toBytes(), problems));
  }
}
