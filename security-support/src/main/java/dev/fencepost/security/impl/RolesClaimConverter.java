package dev.fencepost.security.impl;

import dev.fencepost.security.FencepostRole;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.core.convert.converter.Converter;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.oauth2.jwt.Jwt;

/**
 * A token's authorities: the {@link FencepostRole}s named in its roles claim, plus those the
 * subject-roles map grants its subject. Names that are not a FencepostRole are ignored rather than
 * refused, so an issuer may carry roles meant for other systems.
 */
final class RolesClaimConverter implements Converter<Jwt, Collection<GrantedAuthority>> {

  private final String rolesClaim;
  private final Map<String, Set<FencepostRole>> subjectRoles;

  RolesClaimConverter(String rolesClaim, Map<String, Set<FencepostRole>> subjectRoles) {
    this.rolesClaim = rolesClaim;
    this.subjectRoles = Map.copyOf(subjectRoles);
  }

  @Override
  public Collection<GrantedAuthority> convert(Jwt jwt) {
    Set<FencepostRole> roles = EnumSet.noneOf(FencepostRole.class);
    Object claim = jwt.getClaims().get(rolesClaim);
    if (claim instanceof Collection<?> names) {
      names.forEach(name -> known(String.valueOf(name), roles));
    } else if (claim instanceof String names) {
      for (String name : names.split("[\\s,]+")) {
        known(name, roles);
      }
    }
    String subject = jwt.getSubject();
    if (subject != null) {
      roles.addAll(subjectRoles.getOrDefault(subject, Set.of()));
    }
    List<GrantedAuthority> authorities =
        roles.stream()
            .map(role -> (GrantedAuthority) new SimpleGrantedAuthority(role.authority()))
            .toList();
    return authorities;
  }

  private static void known(String name, Set<FencepostRole> roles) {
    for (FencepostRole role : FencepostRole.values()) {
      if (role.name().equals(name)) {
        roles.add(role);
      }
    }
  }
}
