package dev.fencepost.railstub;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Entry point of the rail stub (port 8083 by default). */
@SpringBootApplication
@ConfigurationPropertiesScan
public class RailStubApplication {

  public static void main(String[] args) {
    SpringApplication.run(RailStubApplication.class, args);
  }
}
