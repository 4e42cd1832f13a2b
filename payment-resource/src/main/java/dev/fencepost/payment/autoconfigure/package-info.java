/**
 * paydb in a Spring Boot application: {@link
 * dev.fencepost.payment.autoconfigure.PaydbAutoConfiguration} wires paydb's DataSource and the
 * {@link dev.fencepost.payment.PaymentResource} from {@code fencepost.paydb.*} ({@link
 * dev.fencepost.payment.autoconfigure.PaydbProperties}). Spring Boot and HikariCP are optional
 * dependencies of payment-resource: without them this package is never loaded and the library is
 * used with {@code new PaymentResource(dataSource, meterRegistry)}.
 */
package dev.fencepost.payment.autoconfigure;
