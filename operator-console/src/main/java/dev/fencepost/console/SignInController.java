package dev.fencepost.console;

import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;

/** The sign-in page, the only page an unauthenticated visitor sees, and the refusal page. */
@Controller
class SignInController {

  @GetMapping("/login")
  String login(
      @RequestParam(required = false) String failed,
      @RequestParam(required = false) String signedOut,
      Model model) {
    model.addAttribute("failed", failed != null);
    model.addAttribute("signedOut", signedOut != null);
    return "login";
  }

  @GetMapping("/forbidden")
  String forbidden(HttpServletResponse response) {
    response.setStatus(403);
    return "forbidden";
  }
}
