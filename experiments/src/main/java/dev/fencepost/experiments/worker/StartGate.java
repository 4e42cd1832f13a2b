package dev.fencepost.experiments.worker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Holds the worker after its beans are built and before anything runs payouts (the job loop is a
 * lifecycle bean, a once-mode run starts after refresh): a successor JVM can start while the
 * harness is still freezing the first worker, and go the moment the harness creates the gate file.
 * A JVM start is most of a run's time on two cores.
 */
final class StartGate implements SmartInitializingSingleton {

  private static final Logger log = LoggerFactory.getLogger(StartGate.class);

  private final Path gate;
  private final Path ready;

  StartGate(Path controlDir) {
    this.gate = controlDir.resolve("go");
    this.ready = controlDir.resolve("ready");
  }

  @Override
  public void afterSingletonsInstantiated() {
    try {
      Files.createDirectories(ready.getParent());
      Files.writeString(ready, "ready\n");
      log.atInfo().addKeyValue("event", "experiment.gate.waiting").log("waiting for {}", gate);
      while (!Files.exists(gate)) {
        TimeUnit.MILLISECONDS.sleep(5);
      }
      log.atInfo().addKeyValue("event", "experiment.gate.opened").log("gate opened");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted at the start gate", e);
    }
  }
}
