package dev.fencepost.lockserver.grant;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /v1/grant-keys}: the public keys that verify grants (ADR 0136), as a JWK set, current
 * and previous keys alike. Only public parts: {@link GrantSigner#publicKeys()} holds nothing else.
 */
@RestController
class GrantKeysController {

  /** RFC 7517's media type of a JWK set. */
  static final MediaType JWK_SET = MediaType.parseMediaType("application/jwk-set+json");

  private final GrantSigner signer;

  GrantKeysController(GrantSigner signer) {
    this.signer = signer;
  }

  @GetMapping("/v1/grant-keys")
  ResponseEntity<String> grantKeys() {
    return ResponseEntity.ok().contentType(JWK_SET).body(signer.publicKeys().toString());
  }
}
