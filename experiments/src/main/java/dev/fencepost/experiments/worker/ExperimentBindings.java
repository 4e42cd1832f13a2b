package dev.fencepost.experiments.worker;

import dev.fencepost.history.HistoryRecorder;
import dev.fencepost.lock.client.LockClient;
import dev.fencepost.payment.FencingMode;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.PaymentResourceOptions;
import dev.fencepost.payoutjob.PayoutEffectListener;
import dev.fencepost.payoutjob.PayoutFailpoint;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.Environment;

/**
 * Registers the experiment's beans before the payout job's configuration is processed, so that its
 * {@code @ConditionalOnMissingBean} seams ({@link PayoutFailpoint}, {@link PayoutEffectListener},
 * {@link PaymentResource}) see them. Properties ({@code fencepost.experiment.}):
 *
 * <ul>
 *   <li>{@code history-dir}, {@code worker-id}: record {@code effect} and {@code client_op} lines
 *       (docs/history-checker.md) into the run directory.
 *   <li>{@code pause-at} or {@code kill-at} (a {@link PayoutFailpoint.Point}) with {@code
 *       control-dir}: park there the first time ({@link ParkingFailpoint}); the harness then
 *       SIGSTOPs or SIGKILLs this process. With {@code park-count=N}, the first N payouts to reach
 *       it park (a worker with N payout threads, each holding its account's lock).
 *   <li>{@code pause-lands-after-check=true}: once resumed, the locks acquired before the pause
 *       skip {@code ensureHeld()}, as if the pause had hit a moment after the check passed.
 *   <li>{@code resource-fence=off}: paydb's fence disabled in this worker (ADR 0035, ADR 0100).
 *   <li>{@code gated=true} with {@code control-dir}: start up, then wait for {@code
 *       <control-dir>/go} before running any payout ({@link StartGate}).
 * </ul>
 */
public final class ExperimentBindings
    implements ApplicationContextInitializer<ConfigurableApplicationContext> {

  private static final Logger log = LoggerFactory.getLogger(ExperimentBindings.class);
  private static final String PREFIX = "fencepost.experiment.";

  @Override
  public void initialize(ConfigurableApplicationContext applicationContext) {
    GenericApplicationContext context = (GenericApplicationContext) applicationContext;
    Environment env = context.getEnvironment();
    String historyDir = env.getProperty(PREFIX + "history-dir");
    String workerId = env.getProperty(PREFIX + "worker-id", "worker");
    HistoryRecorder recorder =
        historyDir == null || historyDir.isBlank()
            ? null
            : HistoryRecorder.open(Path.of(historyDir), workerId);

    ParkingFailpoint parking = null;
    String pauseAt = env.getProperty(PREFIX + "pause-at", "");
    String killAt = env.getProperty(PREFIX + "kill-at", "");
    String point = !pauseAt.isBlank() ? pauseAt : killAt;
    if (!point.isBlank()) {
      String controlDir = env.getRequiredProperty(PREFIX + "control-dir");
      parking =
          new ParkingFailpoint(
              PayoutFailpoint.Point.valueOf(point.strip()),
              Path.of(controlDir),
              env.getProperty(PREFIX + "park-count", Integer.class, 1));
      ParkingFailpoint failpoint = parking;
      context.registerBean("payoutFailpoint", PayoutFailpoint.class, () -> failpoint);
    }
    if (recorder != null) {
      context.registerBean(
          "payoutEffectListener",
          PayoutEffectListener.class,
          () -> new HistoryEffectListener(recorder, workerId));
    }
    if (env.getProperty(PREFIX + "gated", Boolean.class, false)) {
      Path controlDir = Path.of(env.getRequiredProperty(PREFIX + "control-dir"));
      context.registerBean("experimentStartGate", StartGate.class, () -> new StartGate(controlDir));
    }
    boolean skipCheckAfterPause =
        env.getProperty(PREFIX + "pause-lands-after-check", Boolean.class, false);
    if (recorder != null || skipCheckAfterPause) {
      ParkingFailpoint pauses = parking;
      context.registerBean(
          "experimentLockClientWrapper",
          BeanPostProcessor.class,
          () ->
              new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                  if (bean instanceof LockClient client) {
                    return new RecordingLockClient(
                        client, recorder, workerId, pauses, skipCheckAfterPause);
                  }
                  return bean;
                }
              });
    }
    if ("off".equalsIgnoreCase(env.getProperty(PREFIX + "resource-fence", "on"))) {
      log.atWarn()
          .addKeyValue("event", "experiment.resource_fence_disabled")
          .addKeyValue("worker", workerId)
          .log("paydb fence DISABLED in this worker: negative-control experiment only");
      context.registerBean(
          "paymentResource",
          PaymentResource.class,
          () ->
              new PaymentResource(
                  context.getBean("paydbDataSource", DataSource.class),
                  context.getBean(MeterRegistry.class),
                  PaymentResourceOptions.defaults()
                      .withFencingMode(FencingMode.EXPERIMENT_DISABLED)));
    }
    log.atInfo()
        .addKeyValue("event", "experiment.worker.configured")
        .addKeyValue("worker", workerId)
        .addKeyValue("point", point)
        .addKeyValue("recording", recorder != null)
        .log("experiment worker {} configured", workerId);
  }
}
