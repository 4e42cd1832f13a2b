package dev.fencepost.testsupport.spring;

import java.util.concurrent.atomic.AtomicReference;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringApplicationRunListener;
import org.springframework.boot.bootstrap.ConfigurableBootstrapContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The environment an application prepares, exactly as its {@code main} would (config names,
 * profiles, command line), without starting any bean: the run is abandoned as soon as the
 * environment is ready. For tests of what an application reads from where.
 */
public final class PreparedEnvironment {

  private PreparedEnvironment() {}

  /** The environment {@code application} prepares when run with {@code args}. */
  public static ConfigurableEnvironment of(SpringApplicationBuilder application, String... args) {
    AtomicReference<ConfigurableEnvironment> prepared = new AtomicReference<>();
    try {
      SpringApplication.withHook(
          app ->
              new SpringApplicationRunListener() {
                @Override
                public void environmentPrepared(
                    ConfigurableBootstrapContext bootstrapContext,
                    ConfigurableEnvironment environment) {
                  prepared.set(environment);
                  throw new SpringApplication.AbandonedRunException();
                }
              },
          () -> application.logStartupInfo(false).run(args));
    } catch (SpringApplication.AbandonedRunException expected) {
      // the environment is all that was wanted
    }
    if (prepared.get() == null) {
      throw new IllegalStateException("the application never prepared its environment");
    }
    return prepared.get();
  }
}
