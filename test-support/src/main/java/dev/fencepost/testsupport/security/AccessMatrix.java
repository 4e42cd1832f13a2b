package dev.fencepost.testsupport.security;

import dev.fencepost.security.FencepostRole;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A service's access rules as a table (ADR 0145, 0146): each endpoint with the roles it allows,
 * called without credentials (must be 401), as every role it does not allow (must be 403) and as
 * the roles it does (must not be refused). The services' access tests differ only in their tables
 * and their HTTP clients ({@code C}); the rule they check is this one.
 */
public final class AccessMatrix {

  private AccessMatrix() {}

  /** One endpoint: its name in a report, the roles it allows, and how to call it. */
  public record Endpoint<C>(String name, Set<FencepostRole> allowed, Call<C> call) {}

  /** One call of an endpoint by a given caller. */
  @FunctionalInterface
  public interface Call<C> {
    HttpResponse<String> on(C caller) throws Exception;
  }

  /**
   * What the table finds wrong, one line a call whose answer broke the rules; empty when all hold.
   * {@code anonymous} gives a caller without credentials, {@code holding} one holding a role.
   */
  public static <C> List<String> violations(
      List<Endpoint<C>> endpoints, Supplier<C> anonymous, Function<FencepostRole, C> holding)
      throws Exception {
    List<String> found = new ArrayList<>();
    for (Endpoint<C> endpoint : endpoints) {
      int unauthenticated = endpoint.call().on(anonymous.get()).statusCode();
      if (unauthenticated != 401) {
        found.add(endpoint.name() + " without credentials answered " + unauthenticated);
      }
      for (FencepostRole role : FencepostRole.values()) {
        int status = endpoint.call().on(holding.apply(role)).statusCode();
        boolean allowed = endpoint.allowed().contains(role);
        if (allowed && (status == 401 || status == 403)) {
          found.add(endpoint.name() + " as " + role + " was refused with " + status);
        }
        if (!allowed && status != 403) {
          found.add(endpoint.name() + " as " + role + " answered " + status + ", not 403");
        }
      }
    }
    return found;
  }
}
