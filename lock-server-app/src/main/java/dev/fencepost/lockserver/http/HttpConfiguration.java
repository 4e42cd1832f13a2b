package dev.fencepost.lockserver.http;

import dev.fencepost.lockserver.config.LockServerProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/** HTTP plumbing: the body size limit runs before anything reads a body. */
@Configuration(proxyBeanMethods = false)
class HttpConfiguration {

  @Bean
  FilterRegistrationBean<BodySizeLimitFilter> bodySizeLimitFilter(LockServerProperties properties) {
    FilterRegistrationBean<BodySizeLimitFilter> registration =
        new FilterRegistrationBean<>(new BodySizeLimitFilter(properties.maxBodySize().toBytes()));
    registration.addUrlPatterns("/v1/*");
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return registration;
  }
}
