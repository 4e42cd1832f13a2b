package dev.fencepost.web;

import org.apache.catalina.core.StandardHost;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * problem+json for every error of a servlet web application: {@link ProblemJsonExceptionHandler}
 * unless the application declares its own subclass of it, and {@link ProblemJsonErrorReportValve}
 * as Tomcat's error report valve; and the bound on every request body, {@link
 * RequestBodyLimitFilter}. Ordered before Boot's web MVC auto-configuration, so Boot's own
 * problem-details handler ({@code spring.mvc.problemdetails.enabled}) always backs off for it.
 */
@AutoConfiguration(
    beforeName = "org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@EnableConfigurationProperties(WebBoundsProperties.class)
public final class ProblemJsonAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(ProblemJsonExceptionHandler.class)
  ProblemJsonExceptionHandler problemJsonExceptionHandler() {
    return new ProblemJsonExceptionHandler();
  }

  /**
   * Every path's request body is bounded (ADR 0167), first of all filters, so that nothing, not
   * even authentication, reads more than the limit. An application with its own limit property
   * registers its own {@link RequestBodyLimitFilter} under {@link
   * RequestBodyLimitFilter#BEAN_NAME}.
   */
  @Bean(RequestBodyLimitFilter.BEAN_NAME)
  @ConditionalOnMissingBean(name = RequestBodyLimitFilter.BEAN_NAME)
  FilterRegistrationBean<RequestBodyLimitFilter> requestBodyLimitFilter(
      WebBoundsProperties properties, ObjectProvider<ProblemJsonExceptionHandler> problems) {
    return registration(
        new RequestBodyLimitFilter(
            properties.maxRequestBodySize().toBytes(), problems.getIfAvailable()));
  }

  /** The registration of {@code filter} on every path, before every other filter. */
  public static FilterRegistrationBean<RequestBodyLimitFilter> registration(
      RequestBodyLimitFilter filter) {
    FilterRegistrationBean<RequestBodyLimitFilter> registration =
        new FilterRegistrationBean<>(filter);
    registration.addUrlPatterns("/*");
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return registration;
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({StandardHost.class, TomcatContextCustomizer.class})
  static class TomcatErrorReports {

    /** Errors Tomcat raises before routing get problem+json too (see the valve). */
    @Bean
    TomcatContextCustomizer problemJsonErrorReportValve() {
      return errorReportValve();
    }
  }

  /** Makes {@link ProblemJsonErrorReportValve} the error report valve of a context's host. */
  static TomcatContextCustomizer errorReportValve() {
    return context -> {
      if (context.getParent() instanceof StandardHost host) {
        host.setErrorReportValveClass(ProblemJsonErrorReportValve.class.getName());
      }
    };
  }
}
