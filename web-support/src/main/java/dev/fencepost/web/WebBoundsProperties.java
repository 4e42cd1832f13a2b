package dev.fencepost.web;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Bounds every Fencepost HTTP application applies, under {@code fencepost.web}.
 *
 * @param maxRequestBodySize the largest request body accepted on any path, actuator endpoints
 *     included; a larger one gets 413 {@code PAYLOAD_TOO_LARGE} before anything parses it. Default
 *     16KB: Fencepost's bodies are a few hundred bytes. The lock server ({@code
 *     fencepost.lock.max-body-size}) and the rail proxy ({@code fencepost.proxy.max-request-size})
 *     keep their own, older names for it
 */
@ConfigurationProperties("fencepost.web")
public record WebBoundsProperties(DataSize maxRequestBodySize) {

  public WebBoundsProperties {
    maxRequestBodySize = maxRequestBodySize == null ? DataSize.ofKilobytes(16) : maxRequestBodySize;
    if (maxRequestBodySize.toBytes() < 1) {
      throw new IllegalArgumentException("fencepost.web.max-request-body-size must be positive");
    }
  }
}
