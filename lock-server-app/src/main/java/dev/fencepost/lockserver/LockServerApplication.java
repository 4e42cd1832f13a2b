package dev.fencepost.lockserver;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;

/**
 * The Fencepost lock server: a stateless HTTP front over a lock backend (PostgreSQL or etcd). Any
 * number of instances against one backend behave as one service.
 */
// Each backend wires its own store: an etcd-backed server must start without any database.
@SpringBootApplication(
    exclude = {DataSourceAutoConfiguration.class, LiquibaseAutoConfiguration.class})
public class LockServerApplication {

  public static void main(String[] args) {
    SpringApplication.run(LockServerApplication.class, args);
  }
}
