/**
 * The problem+json error mapping shared by the Fencepost HTTP applications: {@link
 * dev.fencepost.web.Problems} builds an answer with a stable {@code code}, {@link
 * dev.fencepost.web.ProblemJsonExceptionHandler} maps Spring MVC's own rejections and unexpected
 * exceptions (an application subclasses it for its domain exceptions), and {@link
 * dev.fencepost.web.ProblemJsonErrorReportValve} answers what Tomcat refuses before routing. {@link
 * dev.fencepost.web.ProblemJsonAutoConfiguration} wires them into any servlet application that has
 * this module on its class path.
 */
package dev.fencepost.web;
