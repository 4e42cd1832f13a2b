package dev.fencepost.lockserver.http;

import dev.fencepost.lockserver.config.LockServerProperties;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;

/**
 * HTTP plumbing: the body size limit runs before anything reads a body, and JSON is read strictly
 * so that a value of the wrong type is a 400, not a silently converted value.
 */
@Configuration(proxyBeanMethods = false)
class HttpConfiguration {

  /**
   * Jackson would otherwise turn {@code "owner": true} into the owner {@code "true"}, {@code
   * "token": "7"} into 7 and {@code "token": 1.5} into 1. A lock request with a value of the wrong
   * type is a client bug that should be told, not guessed at.
   */
  @Bean
  JsonMapperBuilderCustomizer strictScalarCoercion() {
    return builder ->
        builder
            .withCoercionConfig(
                LogicalType.Textual,
                config ->
                    config
                        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .withCoercionConfig(
                LogicalType.Integer,
                config ->
                    config
                        .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail));
  }

  @Bean
  FilterRegistrationBean<BodySizeLimitFilter> bodySizeLimitFilter(LockServerProperties properties) {
    FilterRegistrationBean<BodySizeLimitFilter> registration =
        new FilterRegistrationBean<>(new BodySizeLimitFilter(properties.maxBodySize().toBytes()));
    registration.addUrlPatterns("/v1/*");
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return registration;
  }
}
