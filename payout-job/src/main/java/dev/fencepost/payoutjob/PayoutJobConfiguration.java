package dev.fencepost.payoutjob;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencepost.lock.client.LockTemplate;
import dev.fencepost.payment.PaymentResource;
import dev.fencepost.payment.Payout;
import dev.fencepost.payment.autoconfigure.PaydbAutoConfiguration;
import dev.fencepost.security.BearerTokenSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import javax.sql.DataSource;
import org.springframework.batch.core.configuration.annotation.StepScope;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.listener.ChunkListener;
import org.springframework.batch.core.listener.StepExecutionListener;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.Step;
import org.springframework.batch.core.step.builder.SimpleStepBuilder;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * payoutJob: one chunk-oriented step, {@code payoutStep}, reading candidate payouts, executing each
 * under its account's lock ({@link PayoutProcessor}, {@link PayoutExecutor}) and tallying the
 * outcomes. Each payout's effects are committed by payment-resource and the proxy inside its grant,
 * as the attempt goes; the chunk is only the job repository's bookkeeping, committed once per
 * {@code fencepost.payout.commit-interval} payouts or sooner ({@link ReadyCandidatesPolicy}, ADR
 * 0207). A killed worker loses at most that bookkeeping: nothing a recovery needs, which it finds
 * in paydb and the proxy (UC-04).
 *
 * <p>With {@code fencepost.payout.concurrency} above 1 the step runs that many payout threads, each
 * its own chunk loop over the one shared reader (ADR 0063).
 *
 * <p>paydb and the {@link PaymentResource} come from payment-resource's auto-configuration ({@code
 * fencepost.paydb.*}): a non-default-candidate DataSource, so Boot's own auto-configuration (Batch,
 * Liquibase, health) keeps to batchdb ({@code spring.datasource.*}, see batch-support). The job
 * never migrates paydb.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(PayoutJobProperties.class)
public class PayoutJobConfiguration {

  /** The job's name, for launches and the actuator endpoint. */
  public static final String JOB_NAME = "payoutJob";

  @Bean
  @ConditionalOnMissingBean
  RailProxyClient railProxyClient(
      PayoutJobProperties properties, ObjectProvider<BearerTokenSource> credentials) {
    PayoutJobProperties.Proxy proxy = properties.getProxy();
    return new RailProxyClient(
        proxy.getBaseUrl(),
        proxy.getConnectTimeout(),
        proxy.getTimeout(),
        proxy.getReadTimeout(),
        credentials.getIfAvailable());
  }

  /** paydb's backlog gauges (ADR 0175), refreshed on their own thread; closed with the context. */
  @Bean(destroyMethod = "close")
  @ConditionalOnProperty(
      name = "fencepost.payout.metrics.enabled",
      havingValue = "true",
      matchIfMissing = true)
  PaydbGauges paydbGauges(
      @Qualifier(PaydbAutoConfiguration.QUALIFIER) DataSource paydb,
      PayoutJobProperties properties,
      MeterRegistry meters) {
    PayoutJobProperties.Metrics metrics = properties.getMetrics();
    return new PaydbGauges(paydb, metrics.getAmbiguousSla(), meters).start(metrics.getRefresh());
  }

  /** No-op in production; tests bind one that stops a worker at a chosen point (UC-04). */
  @Bean
  @ConditionalOnMissingBean
  PayoutFailpoint payoutFailpoint() {
    return PayoutFailpoint.NONE;
  }

  /** No-op in production; the experiment worker (ADR 0100) binds one that records each attempt. */
  @Bean
  @ConditionalOnMissingBean
  PayoutEffectListener payoutEffectListener() {
    return PayoutEffectListener.NONE;
  }

  @Bean
  PayoutExecutor payoutExecutor(
      LockTemplate locks,
      PaymentResource paydb,
      RailProxyClient proxy,
      PayoutFailpoint failpoint,
      PayoutEffectListener effects,
      PayoutJobProperties properties,
      MeterRegistry meters) {
    String workerId =
        properties.getWorkerId().isBlank() ? defaultWorkerId() : properties.getWorkerId();
    return new PayoutExecutor(
        locks, paydb, proxy, failpoint, effects, workerId, properties.getLockWait(), meters);
  }

  @Bean
  @StepScope
  PayoutCandidateReader payoutCandidateReader(PaymentResource paydb, PayoutJobProperties props) {
    return new PayoutCandidateReader(paydb, props.getPageSize(), props.getMaxAttemptsPerRun());
  }

  @Bean
  @StepScope
  PayoutStepTally payoutStepTally(PayoutJobProperties props) {
    return new PayoutStepTally(props.getTimingsFile());
  }

  /**
   * Each payout thread makes its own paydb calls, and holds a batchdb connection for its chunk's
   * transaction (waiting on the lock and the rail included) while the job repository needs one
   * more: raise paydb's pool to at least {@code fencepost.payout.concurrency} + 1 connections and
   * batchdb's to + 2 (ADR 0063). Larger configured pools are left alone.
   */
  @Bean
  static BeanPostProcessor poolsFitConcurrency(Environment environment) {
    int concurrency = environment.getProperty("fencepost.payout.concurrency", Integer.class, 1);
    return new BeanPostProcessor() {
      @Override
      public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof HikariDataSource hikari) {
          int needed =
              PaydbAutoConfiguration.DATA_SOURCE_BEAN.equals(beanName)
                  ? concurrency + 1
                  : concurrency + 2;
          if (hikari.getMaximumPoolSize() < needed) {
            hikari.setMaximumPoolSize(needed);
          }
        }
        return bean;
      }
    };
  }

  @Bean
  Step payoutStep(
      JobRepository repository,
      PlatformTransactionManager transactionManager,
      PayoutCandidateReader reader,
      PayoutExecutor executor,
      PayoutStepTally tally,
      PayoutJobProperties properties) {
    SimpleStepBuilder<Payout, PayoutResult> step =
        new StepBuilder("payoutStep", repository)
            .<Payout, PayoutResult>chunk(
                new ReadyCandidatesPolicy(reader, properties.getCommitInterval()),
                transactionManager)
            .reader(reader)
            .processor(
                new PayoutProcessor(reader, executor, tally, properties.getPayoutsPerGrant()))
            .writer(tally)
            .listener((StepExecutionListener) tally)
            .listener((ChunkListener) reader);
    if (properties.getConcurrency() > 1) {
      step.stepOperations(new ConcurrentStepOperations(properties.getConcurrency()));
    }
    return step.build();
  }

  @Bean
  Job payoutJob(JobRepository repository, Step payoutStep) {
    return new JobBuilder(JOB_NAME, repository).start(payoutStep).build();
  }

  static String defaultWorkerId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "localhost";
    }
    return ("payout-job@" + host + ":" + ManagementFactory.getRuntimeMXBean().getPid())
        .replaceAll("\\s", "");
  }
}
