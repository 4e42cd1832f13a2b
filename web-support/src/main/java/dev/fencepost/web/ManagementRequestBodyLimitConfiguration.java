package dev.fencepost.web;

import org.apache.catalina.core.StandardHost;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * The request body bound and Tomcat's problem+json error reports on a separate management port too:
 * there the actuator endpoints run in a child context with a server of its own, which the main
 * context's filters do not reach. Same limit as the application's ({@link RequestBodyLimitFilter});
 * on the main port the main registration already covers the actuator.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
class ManagementRequestBodyLimitConfiguration {

  @Bean
  FilterRegistrationBean<RequestBodyLimitFilter> managementRequestBodyLimitFilter(
      ObjectProvider<WebBoundsProperties> defaults,
      ObjectProvider<ProblemJsonExceptionHandler> problems,
      org.springframework.beans.factory.BeanFactory beans) {
    long limit =
        beans.containsBean(RequestBodyLimitFilter.BEAN_NAME)
                && beans.getBean(RequestBodyLimitFilter.BEAN_NAME)
                    instanceof FilterRegistrationBean<?> main
                && main.getFilter() instanceof RequestBodyLimitFilter filter
            ? filter.maxBytes()
            : defaults
                .getIfAvailable(() -> new WebBoundsProperties(null))
                .maxRequestBodySize()
                .toBytes();
    return ProblemJsonAutoConfiguration.registration(
        new RequestBodyLimitFilter(limit, problems.getIfAvailable()));
  }

  /** A bare error status from an actuator endpoint gets a problem+json body (the filter). */
  @Bean
  FilterRegistrationBean<EmptyErrorBodyFilter> managementEmptyErrorBodyFilter() {
    FilterRegistrationBean<EmptyErrorBodyFilter> registration =
        new FilterRegistrationBean<>(new EmptyErrorBodyFilter());
    registration.addUrlPatterns("/*");
    // Inside the body bound, whose own refusal has a body already.
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
    return registration;
  }

  /**
   * The management server is a Tomcat of its own, which the main context's customizers do not reach
   * (the child applies only its own): without this, a path Tomcat refuses there (an encoded NUL)
   * was answered with Tomcat's HTML page.
   */
  @Bean
  @ConditionalOnClass({StandardHost.class, TomcatServletWebServerFactory.class})
  WebServerFactoryCustomizer<TomcatServletWebServerFactory>
      managementProblemJsonErrorReportValve() {
    return factory ->
        factory.addContextCustomizers(ProblemJsonAutoConfiguration.errorReportValve());
  }
}
