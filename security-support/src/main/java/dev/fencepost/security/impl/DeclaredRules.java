package dev.fencepost.security.impl;

import dev.fencepost.security.EndpointAccess;
import dev.fencepost.security.FencepostRole;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AuthorizeHttpRequestsConfigurer;

/** The rules an application declared, applied in order to Spring Security's registry. */
final class DeclaredRules implements EndpointAccess.Rules {

  private enum Kind {
    ROLES,
    AUTHENTICATED,
    OPEN
  }

  private record Rule(Kind kind, HttpMethod method, String pattern, FencepostRole[] roles) {}

  private final List<Rule> rules = new ArrayList<>();

  @Override
  public EndpointAccess.Rules allow(HttpMethod method, String pattern, FencepostRole... roles) {
    if (roles.length == 0) {
      throw new IllegalArgumentException(
          "allow(" + method + ", " + pattern + ") names no role; use authenticated(...)");
    }
    rules.add(new Rule(Kind.ROLES, method, pattern, roles.clone()));
    return this;
  }

  @Override
  public EndpointAccess.Rules authenticated(HttpMethod method, String pattern) {
    rules.add(new Rule(Kind.AUTHENTICATED, method, pattern, null));
    return this;
  }

  @Override
  public EndpointAccess.Rules open(HttpMethod method, String pattern) {
    if (method != HttpMethod.GET) {
      // Open means readable by anyone; nothing that changes state may be declared so.
      throw new IllegalArgumentException(
          "open(" + method + ", " + pattern + "): only GET may be open to anyone");
    }
    rules.add(new Rule(Kind.OPEN, method, pattern, null));
    return this;
  }

  boolean isEmpty() {
    return rules.isEmpty();
  }

  void applyTo(
      AuthorizeHttpRequestsConfigurer<HttpSecurity>.AuthorizationManagerRequestMatcherRegistry
          registry) {
    for (Rule rule : rules) {
      var matched = registry.requestMatchers(rule.method(), rule.pattern());
      switch (rule.kind()) {
        case ROLES ->
            matched.hasAnyRole(Arrays.stream(rule.roles()).map(Enum::name).toArray(String[]::new));
        case AUTHENTICATED -> matched.authenticated();
        case OPEN -> matched.permitAll();
      }
    }
  }
}
