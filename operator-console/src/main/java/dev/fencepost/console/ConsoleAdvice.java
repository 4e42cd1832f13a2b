package dev.fencepost.console;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.authentication.logout.SecurityContextLogoutHandler;
import org.springframework.ui.Model;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/**
 * What every page shares (the signed-in person's name) and what a page shows when it cannot do what
 * was asked: bad input is a 400 page naming the field and changes nothing; a sign-in that expired
 * sends the person through the issuer again; a store that cannot be read is a page saying so.
 */
@ControllerAdvice
class ConsoleAdvice {

  private static final Logger log = LoggerFactory.getLogger(ConsoleAdvice.class);

  @ModelAttribute("person")
  String person() {
    return OperatorToken.person();
  }

  @ExceptionHandler(BadInputException.class)
  String badInput(
      BadInputException e, HttpServletRequest request, HttpServletResponse response, Model model) {
    log.atInfo()
        .addKeyValue("event", "console.input.refused")
        .addKeyValue("path", request.getRequestURI())
        .addKeyValue("field", e.field())
        .log("input refused: {}", e.getMessage());
    response.setStatus(400);
    model.addAttribute("title", "Not accepted");
    model.addAttribute("message", e.field() + ": " + e.getMessage());
    return "problem";
  }

  @ExceptionHandler({
    MissingServletRequestParameterException.class,
    MethodArgumentTypeMismatchException.class
  })
  String malformed(Exception e, HttpServletResponse response, Model model) {
    response.setStatus(400);
    model.addAttribute("title", "Not accepted");
    model.addAttribute("message", "the request is missing a field or has one of the wrong type");
    return "problem";
  }

  @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
  String method(HttpServletResponse response, Model model) {
    response.setStatus(405);
    model.addAttribute("title", "Not here");
    model.addAttribute("message", "this page does not take that kind of request");
    return "problem";
  }

  @ExceptionHandler(NoResourceFoundException.class)
  String notFound(HttpServletResponse response, Model model) {
    response.setStatus(404);
    model.addAttribute("title", "No such page");
    model.addAttribute("message", "there is no such page in the console");
    return "problem";
  }

  /** The token is gone or about to expire: sign in again (silently while the issuer remembers). */
  @ExceptionHandler(SignInExpiredException.class)
  String expired(HttpServletRequest request, HttpServletResponse response) {
    log.atInfo()
        .addKeyValue("event", "console.sign_in_expired")
        .addKeyValue("person", OperatorToken.person())
        .log("sign-in expired; signing in again");
    new SecurityContextLogoutHandler()
        .logout(request, response, SecurityContextHolder.getContext().getAuthentication());
    return "redirect:/oauth2/authorization/" + ConsoleSecurityConfiguration.REGISTRATION;
  }

  /** A database could not be read: say so, with the cause's kind and no stack trace. */
  @ExceptionHandler(org.springframework.dao.DataAccessException.class)
  String unreadable(
      org.springframework.dao.DataAccessException e,
      HttpServletRequest request,
      HttpServletResponse response,
      Model model) {
    log.atWarn()
        .addKeyValue("event", "console.read_failed")
        .addKeyValue("path", request.getRequestURI())
        .addKeyValue("error", e.getClass().getSimpleName())
        .log("could not read: {}", e.getMostSpecificCause().getMessage());
    response.setStatus(503);
    model.addAttribute("title", "Could not read");
    model.addAttribute(
        "message",
        "a database did not answer: " + e.getMostSpecificCause().getClass().getSimpleName());
    return "problem";
  }
}
