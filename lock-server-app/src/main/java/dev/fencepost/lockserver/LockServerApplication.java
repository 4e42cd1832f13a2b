package dev.fencepost.lockserver;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The Fencepost lock server: a stateless HTTP front over a lock backend (PostgreSQL or etcd). Any
 * number of instances against one backend behave as one service.
 */
@SpringBootApplication
public class LockServerApplication {

  public static void main(String[] args) {
    SpringApplication.run(LockServerApplication.class, args);
  }
}
