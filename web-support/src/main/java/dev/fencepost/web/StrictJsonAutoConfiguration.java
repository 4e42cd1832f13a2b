package dev.fencepost.web;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;

/**
 * Every application reads JSON strictly: a value of the wrong type is a 400, never a silently
 * converted value. Jackson would otherwise turn {@code "owner": true} into the owner {@code
 * "true"}, {@code "token": "7"} into 7 and {@code "token": 1.5} into 1. It matters most where the
 * shape cannot be checked after reading: the actuator hands an endpoint operation its body as a map
 * of strings, so without this an operator's {@code "reason": true} arrived as the reason {@code
 * "true"} and was recorded. A request with a value of the wrong type is a client bug that should be
 * told, not guessed at.
 */
@AutoConfiguration
@ConditionalOnClass(JsonMapperBuilderCustomizer.class)
public final class StrictJsonAutoConfiguration {

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
}
