package dev.fencepost.console;

import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.oidcLogin;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.forwardedUrl;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.redirectedUrl;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.OidcLoginRequestPostProcessor;
import org.springframework.security.test.web.servlet.setup.SecurityMockMvcConfigurers;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

/**
 * The console's rules at the MockMvc level, with its real filter chain: every page needs a
 * signed-in person with OPERATOR, an unauthenticated visitor is sent to the sign-in page, every
 * form needs its CSRF token, bad input is a 400 page that reaches no store and no service. Nothing
 * here reads a database or calls a service: each request is refused (or validated) before that.
 */
@SpringBootTest(
    classes = OperatorConsoleApplication.class,
    properties = {
      "spring.config.name=operator-console",
      // Never connected to: every request below is decided before any read.
      "fencepost.console.paydb.url=jdbc:postgresql://127.0.0.1:9/none",
      "fencepost.console.issuer-url=https://127.0.0.1:9",
      "management.server.port=",
      // security-support is on the test class path only (the browser test's launcher needs it).
      "spring.autoconfigure.exclude=" + ConsoleSecurityTest.NOT_THE_CONSOLES,
      "logging.structured.format.console="
    })
class ConsoleSecurityTest {

  /** The services' bearer-token chain: on the test class path, never in the console. */
  static final String NOT_THE_CONSOLES =
      "dev.fencepost.security.impl.ResourceServerSecurityAutoConfiguration,"
          + "dev.fencepost.security.impl.BearerTokenSourceAutoConfiguration,"
          + "dev.fencepost.security.impl.DatabaseCredentialsAutoConfiguration";

  static final List<String> PAGES =
      List.of(
          "/",
          "/locks",
          "/payouts",
          "/findings",
          "/jobs",
          "/payouts/" + java.util.UUID.randomUUID(),
          "/findings/1");

  @Autowired WebApplicationContext context;
  MockMvc mvc;

  @BeforeEach
  void mvc() {
    mvc =
        MockMvcBuilders.webAppContextSetup(context)
            .apply(SecurityMockMvcConfigurers.springSecurity())
            .build();
  }

  static OidcLoginRequestPostProcessor operator() {
    return oidcLogin()
        .idToken(t -> t.subject("alice"))
        .authorities(new SimpleGrantedAuthority("ROLE_OPERATOR"));
  }

  static OidcLoginRequestPostProcessor notAnOperator() {
    return oidcLogin()
        .idToken(t -> t.subject("bob"))
        .authorities(new SimpleGrantedAuthority("ROLE_PAYOUT_WORKER"));
  }

  @Test
  void anUnauthenticatedVisitorIsSentToTheSignInPageFromEveryPage() throws Exception {
    for (String page : PAGES) {
      mvc.perform(get(page)).andExpect(status().isFound()).andExpect(redirectedUrl("/login"));
    }
    mvc.perform(get("/login"))
        .andExpect(status().isOk())
        .andExpect(
            content()
                .string(org.hamcrest.Matchers.containsString("/oauth2/authorization/fencepost")))
        .andExpect(
            content()
                .string(
                    org.hamcrest.Matchers.not(org.hamcrest.Matchers.containsString("/payouts"))));
  }

  @Test
  void anUnauthenticatedFormPostDoesNothing() throws Exception {
    mvc.perform(
            post("/locks/revoke").with(csrf()).param("key", "payout:acc-1").param("reason", "r"))
        .andExpect(status().isFound())
        .andExpect(redirectedUrl("/login"));
  }

  @Test
  void aSignedInPersonWithoutOperatorIsRefusedEveryPage() throws Exception {
    for (String page : PAGES) {
      mvc.perform(get(page).with(notAnOperator()))
          .andExpect(status().isForbidden())
          // The refusal page (MockMvc records the forward; the browser test renders it).
          .andExpect(forwardedUrl("/forbidden"));
    }
    mvc.perform(post("/jobs/reconciliationJob/launch").with(notAnOperator()).with(csrf()))
        .andExpect(status().isForbidden());
    for (String form : List.of("/findings/1/confirm", "/findings/1/act")) {
      mvc.perform(
              post(form)
                  .with(notAnOperator())
                  .with(csrf())
                  .param("action", "acknowledge")
                  .param("reason", "r"))
          .andExpect(status().isForbidden());
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/locks/revoke/confirm",
        "/locks/revoke",
        "/payouts/00000000-0000-0000-0000-000000000001/confirm",
        "/payouts/00000000-0000-0000-0000-000000000001/act",
        "/jobs/reconciliationJob/confirm",
        "/jobs/reconciliationJob/launch",
        "/findings/1/confirm",
        "/findings/1/act",
        "/logout"
      })
  void everyFormNeedsItsCsrfToken(String form) throws Exception {
    mvc.perform(post(form).with(operator()).param("key", "payout:acc-1").param("reason", "r"))
        .andExpect(status().isForbidden());
  }

  @Test
  void withItsCsrfTokenAFormIsJudgedOnItsInput() throws Exception {
    // An unknown job: refused by the console's own check, before any service is called.
    mvc.perform(post("/jobs/noSuchJob/confirm").with(operator()).with(csrf()))
        .andExpect(status().isBadRequest())
        .andExpect(
            content()
                .string(org.hamcrest.Matchers.containsString("payoutJob or reconciliationJob")));
  }

  @Test
  void badInputIsA400PageNamingTheField() throws Exception {
    mvc.perform(get("/payouts").param("state", "NOT_A_STATE").with(operator()))
        .andExpect(status().isBadRequest())
        .andExpect(
            content().string(org.hamcrest.Matchers.containsString("state: state is one of")));
    mvc.perform(get("/payouts").param("olderThan", "ten minutes").with(operator()))
        .andExpect(status().isBadRequest());
    mvc.perform(get("/payouts").param("account", "acc 1; drop").with(operator()))
        .andExpect(status().isBadRequest());
    mvc.perform(get("/locks").param("key", "payout:acc 1").with(operator()))
        .andExpect(status().isBadRequest())
        .andExpect(content().string(org.hamcrest.Matchers.containsString("key: a lock key is")));
    mvc.perform(get("/payouts/not-a-uuid").with(operator())).andExpect(status().isBadRequest());
    mvc.perform(get("/findings").param("severity", "LOUD").with(operator()))
        .andExpect(status().isBadRequest());
    mvc.perform(
            post("/locks/revoke")
                .with(operator())
                .with(csrf())
                .param("key", "payout:acc-1")
                .param("reason", "line one\nline two"))
        .andExpect(status().isBadRequest())
        .andExpect(content().string(org.hamcrest.Matchers.containsString("control characters")));
    mvc.perform(
            post("/payouts/00000000-0000-0000-0000-000000000001/act")
                .with(operator())
                .with(csrf())
                .param("action", "delete")
                .param("reason", "r"))
        .andExpect(status().isBadRequest());
    mvc.perform(
            post("/jobs/reconciliationJob/launch")
                .with(operator())
                .with(csrf())
                .param("parameters", "x".repeat(Inputs.MAX_PARAMETERS + 1)))
        .andExpect(status().isBadRequest());
  }

  @Test
  void badFindingInputIsA400PageNamingTheField() throws Exception {
    mvc.perform(get("/findings/abc").with(operator()))
        .andExpect(status().isBadRequest())
        .andExpect(content().string(org.hamcrest.Matchers.containsString("findingId: ")));
    mvc.perform(get("/findings/0").with(operator())).andExpect(status().isBadRequest());
    mvc.perform(get("/findings").param("status", "DONE").with(operator()))
        .andExpect(status().isBadRequest())
        .andExpect(content().string(org.hamcrest.Matchers.containsString("status: status is")));
    mvc.perform(get("/findings").param("afterId", "-1").with(operator()))
        .andExpect(status().isBadRequest());
    for (String form : List.of("/findings/1/confirm", "/findings/1/act")) {
      mvc.perform(
              post(form)
                  .with(operator())
                  .with(csrf())
                  .param("action", "close")
                  .param("reason", "r"))
          .andExpect(status().isBadRequest())
          .andExpect(
              content().string(org.hamcrest.Matchers.containsString("acknowledge or resolve")));
      mvc.perform(post(form).with(operator()).with(csrf()).param("action", "resolve"))
          .andExpect(status().isBadRequest())
          .andExpect(
              content().string(org.hamcrest.Matchers.containsString("a reason is required")));
      mvc.perform(
              post(form)
                  .with(operator())
                  .with(csrf())
                  .param("action", "acknowledge")
                  .param("reason", "line one\nline two"))
          .andExpect(status().isBadRequest())
          .andExpect(content().string(org.hamcrest.Matchers.containsString("control characters")));
      mvc.perform(
              post(form)
                  .with(operator())
                  .with(csrf())
                  .param("action", "resolve")
                  .param("reason", "x".repeat(Inputs.MAX_FINDING_REASON + 1)))
          .andExpect(status().isBadRequest())
          .andExpect(content().string(org.hamcrest.Matchers.containsString("at most 1000")));
    }
  }

  @Test
  void aMissingReasonIsRefusedBeforeTheRevokeIsSent() throws Exception {
    mvc.perform(post("/locks/revoke").with(operator()).with(csrf()).param("key", "payout:acc-1"))
        .andExpect(status().isBadRequest())
        .andExpect(content().string(org.hamcrest.Matchers.containsString("a reason is required")));
  }
}
