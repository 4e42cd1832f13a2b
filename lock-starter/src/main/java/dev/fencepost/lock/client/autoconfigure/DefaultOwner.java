package dev.fencepost.lock.client.autoconfigure;

import dev.fencepost.lock.client.impl.Owners;
import org.springframework.core.env.Environment;

/** The owner a client declares when none is configured: {@code application@host:pid}. */
final class DefaultOwner {

  private DefaultOwner() {}

  static String of(Environment environment) {
    return Owners.defaultOwner(
        environment.getProperty("spring.application.name", "fencepost-client"));
  }
}
