package dev.fencepost.web;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * The request body bound on a separate management port too: there the actuator endpoints run in a
 * child context with a server of its own, which the main context's filters do not reach. Same limit
 * as the application's ({@link RequestBodyLimitFilter}); on the main port the main registration
 * already covers the actuator.
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
}
