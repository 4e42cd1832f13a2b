package dev.fencepost.lockserver.http;

import static dev.fencepost.security.FencepostRole.OPERATOR;
import static dev.fencepost.security.FencepostRole.PAYOUT_WORKER;
import static dev.fencepost.security.FencepostRole.RECONCILER;

import dev.fencepost.security.EndpointAccess;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;

/**
 * Who may call what on the lock server (docs/security.md): lock holders (payout workers and the
 * reconciler) work with sessions and grants, any authenticated caller may inspect, only an operator
 * may force-revoke, anyone may read the grant-verification keys. Anything else is denied.
 */
@Configuration(proxyBeanMethods = false)
class LockServerAccess {

  @Bean
  EndpointAccess lockServerEndpoints() {
    return rules ->
        rules
            .allow(HttpMethod.POST, "/v1/sessions", PAYOUT_WORKER, RECONCILER)
            .allow(HttpMethod.POST, "/v1/sessions/{id}/keepalive", PAYOUT_WORKER, RECONCILER)
            .allow(HttpMethod.GET, "/v1/sessions/{id}/keepalive-stream", PAYOUT_WORKER, RECONCILER)
            .allow(HttpMethod.DELETE, "/v1/sessions/{id}", PAYOUT_WORKER, RECONCILER)
            .allow(HttpMethod.POST, "/v1/locks/{key}/acquire", PAYOUT_WORKER, RECONCILER)
            .allow(HttpMethod.POST, "/v1/locks/{key}/renew", PAYOUT_WORKER, RECONCILER)
            .allow(HttpMethod.POST, "/v1/locks/{key}/release", PAYOUT_WORKER, RECONCILER)
            .authenticated(HttpMethod.GET, "/v1/locks/{key}")
            .allow(HttpMethod.POST, "/v1/admin/locks/{key}/revoke", OPERATOR)
            // Public verification keys: the rail proxy needs them to check any grant (ADR 0136).
            .open(HttpMethod.GET, "/v1/grant-keys");
  }
}
