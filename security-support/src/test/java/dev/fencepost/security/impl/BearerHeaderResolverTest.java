package dev.fencepost.security.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;
import org.springframework.security.oauth2.server.resource.web.DefaultBearerTokenResolver;

/**
 * Our resolver reads the {@code Authorization} header exactly as Spring Security's default resolver
 * does: the same token, the same "no token", or the same refusal. Spring's resolver is the
 * reference here, so a change in either shows up as a difference.
 */
class BearerHeaderResolverTest {

  private static final String JWT = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ3MSJ9.c2lnbmF0dXJl-_~+/abc==";

  private final DefaultBearerTokenResolver spring = new DefaultBearerTokenResolver();
  private final BearerHeaderResolver ours = new BearerHeaderResolver();
  private final MockHttpServletRequest reused = new MockHttpServletRequest("GET", "/work");

  @Test
  void aBearerHeaderYieldsItsTokenInAnyCaseOfTheScheme() {
    assertThat(resolve("Bearer " + JWT)).isEqualTo(JWT);
    assertThat(resolve("bearer " + JWT)).isEqualTo(JWT);
    assertThat(resolve("BEARER " + JWT)).isEqualTo(JWT);
  }

  @Test
  void noHeaderAndAnotherSchemeYieldNoToken() {
    assertThat(ours.resolve(new MockHttpServletRequest())).isNull();
    assertThat(resolve("Basic dzE6c2VjcmV0")).isNull();
    assertThat(resolve("")).isNull();
    assertThat(resolve("Beare " + JWT)).isNull();
  }

  @Test
  void aMalformedBearerHeaderIsRefusedAsAnInvalidToken() {
    for (String malformed :
        new String[] {
          "Bearer",
          "Bearer ",
          "Bearer  " + JWT,
          "Bearer\t" + JWT,
          "Bearer" + JWT,
          "Bearer ==",
          "Bearer ab=c",
          "Bearer " + JWT + " ",
          "Bearer " + JWT + "\n",
          "Bearer " + JWT + ",x",
          "Bearer " + JWT + "\u00e9",
          "Bearer\u00a0" + JWT
        }) {
      assertThatThrownBy(() -> resolve(malformed))
          .as(malformed)
          .isInstanceOfSatisfying(
              OAuth2AuthenticationException.class,
              e -> {
                assertThat(e.getError().getErrorCode()).isEqualTo("invalid_token");
                assertThat(e.getError().getDescription()).isEqualTo("Bearer token is malformed");
              });
    }
  }

  @Test
  void aTokenInTheQueryOrTheFormIsNotReadAsSpringsDefaultDoesNot() {
    MockHttpServletRequest query = new MockHttpServletRequest("GET", "/work");
    query.setQueryString("access_token=" + JWT);
    query.addParameter("access_token", JWT);
    MockHttpServletRequest form = new MockHttpServletRequest("POST", "/work");
    form.setContentType("application/x-www-form-urlencoded");
    form.addParameter("access_token", JWT);

    assertThat(ours.resolve(query)).isNull();
    assertThat(ours.resolve(form)).isNull();
    assertThat(spring.resolve(query)).isNull();
    assertThat(spring.resolve(form)).isNull();
  }

  /**
   * Every UTF-16 character, surrogates alone included, in each place of the header where the
   * grammar changes: the scheme's letters, its space, the token's first and later characters, and
   * the padding. Our loop reads characters, and no code point past U+FFFF is in either grammar (the
   * random headers below hold a surrogate pair).
   */
  @Test
  void everyCharacterInEveryPartOfTheHeaderIsDecidedAsSpringDecidesIt() {
    for (int c = Character.MIN_VALUE; c <= Character.MAX_VALUE; c++) {
      String one = String.valueOf((char) c);
      same(one + "earer ab");
      same("bEa" + one + "er ab");
      same("Bearer" + one + "ab");
      same("Bearer " + one);
      same("Bearer ab" + one + "cd");
      same("Bearer ab=" + one);
    }
  }

  @Test
  void randomHeadersAroundTheSchemeAndTheGrammarAreDecidedTheSame() {
    SplittableRandom random = new SplittableRandom(223);
    String[] starts = {
      "Bearer ",
      "bearer ",
      "BEARER ",
      "bEaReR ",
      "Bearer",
      "Bearer  ",
      "bearer\t",
      "Basic ",
      "",
      "\u0131earer ",
      "bearer\u00a0",
      "Bear",
      " Bearer "
    };
    char[] pool = {
      'a', 'Z', '0', '9', '-', '.', '_', '~', '+', '/', '=', ' ', '\t', '\r', '\n', ',', ':', '"',
      '%', '\u0000', '\u0085', '\u00e9', '\u0131', '\u017f', '\u212a', '\ud83d', '\ude00'
    };
    for (int n = 0; n < 300_000; n++) {
      StringBuilder header = new StringBuilder(starts[random.nextInt(starts.length)]);
      int length = random.nextInt(0, 10);
      for (int i = 0; i < length; i++) {
        // Mostly token characters, so that many headers are valid and differ late.
        header.append(random.nextInt(4) == 0 ? pool[random.nextInt(pool.length)] : pool[i % 11]);
      }
      same(header.toString());
    }
  }

  private String resolve(String header) {
    return ours.resolve(request(header));
  }

  private void same(String header) {
    assertThat(outcome(ours, header))
        .as("header %s", header.chars().mapToObj(Integer::toHexString).toList())
        .isEqualTo(outcome(spring, header));
  }

  /** The token, "no token", or the refusal's code and description. */
  private String outcome(BearerTokenResolver resolver, String header) {
    // One request, its header replaced: millions of headers are compared.
    reused.removeHeader("Authorization");
    reused.addHeader("Authorization", header);
    try {
      String token = resolver.resolve(reused);
      return token == null ? "no token" : "token " + token;
    } catch (OAuth2AuthenticationException e) {
      return "refused " + e.getError().getErrorCode() + ": " + e.getError().getDescription();
    }
  }

  private static MockHttpServletRequest request(String header) {
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/work");
    request.addHeader("Authorization", header);
    return request;
  }
}
