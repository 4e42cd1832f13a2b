package dev.fencepost.lock.client.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.provider.ArgumentsSource;
import org.junit.jupiter.params.support.ParameterDeclarations;

/**
 * Runs a test once against the {@link RealLockServer} on each backend (FR-09), passed as the test's
 * parameter. Every backend's server is started before the first run: a Spring Boot start
 * re-initialises logging, so a later one would detach a {@code CapturedEvents} already listening.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}")
@ArgumentsSource(OnEveryBackend.Servers.class)
public @interface OnEveryBackend {

  /** The servers, all started before any is handed out. */
  final class Servers implements ArgumentsProvider {
    @Override
    public Stream<Arguments> provideArguments(
        ParameterDeclarations parameters, ExtensionContext context) {
      List<RealLockServer> servers =
          Arrays.stream(RealLockServer.Backend.values()).map(RealLockServer::of).toList();
      return servers.stream().map(Arguments::of);
    }
  }
}
