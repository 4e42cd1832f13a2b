package dev.fencepost.web;

import org.apache.catalina.core.StandardHost;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * problem+json for every error of a servlet web application: {@link ProblemJsonExceptionHandler}
 * unless the application declares its own subclass of it, and {@link ProblemJsonErrorReportValve}
 * as Tomcat's error report valve. Ordered before Boot's web MVC auto-configuration, so Boot's own
 * problem-details handler ({@code spring.mvc.problemdetails.enabled}) always backs off for it.
 */
@AutoConfiguration(
    beforeName = "org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public final class ProblemJsonAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(ProblemJsonExceptionHandler.class)
  ProblemJsonExceptionHandler problemJsonExceptionHandler() {
    return new ProblemJsonExceptionHandler();
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({StandardHost.class, TomcatContextCustomizer.class})
  static class TomcatErrorReports {

    /** Errors Tomcat raises before routing get problem+json too (see the valve). */
    @Bean
    TomcatContextCustomizer problemJsonErrorReportValve() {
      return context -> {
        if (context.getParent() instanceof StandardHost host) {
          host.setErrorReportValveClass(ProblemJsonErrorReportValve.class.getName());
        }
      };
    }
  }
}
