package dev.fencepost.lock.client.impl;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** The owner a client declares when none is configured: {@code application@host:pid}. */
public final class Owners {

  private Owners() {}

  /** {@code application@host:pid}, cut to the 200 characters an owner may have. */
  public static String defaultOwner(String application) {
    String owner = application + "@" + host() + ":" + ProcessHandle.current().pid();
    return owner.length() > 200 ? owner.substring(0, 200) : owner;
  }

  private static String host() {
    String host = System.getenv("HOSTNAME");
    if (host != null && !host.isBlank()) {
      return host;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown-host";
    }
  }
}
