package dev.fencepost.lockserver.http;

import dev.fencepost.lockserver.config.LockServerProperties;
import dev.fencepost.web.ProblemJsonAutoConfiguration;
import dev.fencepost.web.ProblemJsonExceptionHandler;
import dev.fencepost.web.RequestBodyLimitFilter;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
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

  /** web-support's body bound on every path, with the lock server's own limit property. */
  @Bean(RequestBodyLimitFilter.BEAN_NAME)
  FilterRegistrationBean<RequestBodyLimitFilter> requestBodyLimitFilter(
      LockServerProperties properties, ProblemJsonExceptionHandler problems) {
    return ProblemJsonAutoConfiguration.registration(
        new RequestBodyLimitFilter(properties.maxBodySize().toBytes(), problems));
  }
}
