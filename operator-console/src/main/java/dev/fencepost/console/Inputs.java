package dev.fencepost.console;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * What the console accepts from a form or a query, checked before anything is read or sent: the
 * same shapes the services accept (a lock key, an account id, free text without control characters,
 * ADR 0166), so a refusal comes from here with a clear message rather than from a service.
 */
final class Inputs {

  private static final Pattern LOCK_KEY = Pattern.compile("[A-Za-z0-9:._-]{1,128}");
  private static final Pattern ACCOUNT = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final Pattern AGE = Pattern.compile("(\\d{1,5})([smhd])");
  static final int MAX_REASON = 2000;
  static final int MAX_PARAMETERS = 2500;
  static final Set<String> SEVERITIES = Set.of("PAGE", "TICKET");
  static final Set<String> FINDING_STATUSES =
      Set.of("OPEN", "ACKNOWLEDGED", "RESOLVED", "REOPENED");

  /** reconciliation-job's own bound on a finding action's reason (FindingsEndpoint). */
  static final int MAX_FINDING_REASON = 1000;

  private Inputs() {}

  static String lockKey(String key) {
    String k = trimmed(key);
    if (k == null || !LOCK_KEY.matcher(k).matches()) {
      throw new BadInputException(
          "key",
          "a lock key is 1 to 128 letters, digits or : . _ - (for example payout:acc-00001)");
    }
    return k;
  }

  /** A required reason: 1 to 2000 characters, no control characters. */
  static String reason(String reason) {
    String r = trimmed(reason);
    if (r == null) {
      throw new BadInputException("reason", "a reason is required: it goes into the audit trail");
    }
    if (r.length() > MAX_REASON) {
      throw new BadInputException("reason", "a reason has at most " + MAX_REASON + " characters");
    }
    if (hasControlCharacter(r)) {
      throw new BadInputException(
          "reason", "a reason may not contain control characters (tabs, line breaks, ...)");
    }
    return r;
  }

  /** An optional account id filter. */
  static String account(String account) {
    String a = trimmed(account);
    if (a == null) {
      return null;
    }
    if (!ACCOUNT.matcher(a).matches()) {
      throw new BadInputException(
          "account", "an account id is 1 to 64 letters, digits or . _ - (for example acc-00001)");
    }
    return a;
  }

  /** An optional payout state filter. */
  static String state(String state) {
    String s = trimmed(state);
    if (s == null) {
      return null;
    }
    if (!ConsoleReads.STATES.contains(s)) {
      throw new BadInputException("state", "state is one of " + ConsoleReads.STATES);
    }
    return s;
  }

  /** An optional age such as 30s, 10m, 2h or 1d. */
  static Duration age(String age) {
    String a = trimmed(age);
    if (a == null) {
      return null;
    }
    var m = AGE.matcher(a);
    if (!m.matches()) {
      throw new BadInputException("olderThan", "an age is a number and a unit: 30s, 10m, 2h, 1d");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }

  static UUID payoutId(String id) {
    try {
      return UUID.fromString(trimmed(id) == null ? "" : id.trim());
    } catch (IllegalArgumentException e) {
      throw new BadInputException("payoutId", "a payout id is a UUID");
    }
  }

  static String payoutAction(String action) {
    if (!"cancel".equals(action) && !"abandon".equals(action)) {
      throw new BadInputException("action", "the action is cancel or abandon");
    }
    return action;
  }

  static String severity(String severity) {
    String s = trimmed(severity);
    if (s == null) {
      return null;
    }
    if (!SEVERITIES.contains(s)) {
      throw new BadInputException("severity", "severity is PAGE or TICKET");
    }
    return s;
  }

  /** An optional finding status filter; {@code any} (or empty) is every status. */
  static String findingStatus(String status) {
    String s = trimmed(status);
    if (s == null || s.equals("any")) {
      return null;
    }
    if (!FINDING_STATUSES.contains(s)) {
      throw new BadInputException(
          "status", "status is one of " + FINDING_STATUSES.stream().sorted().toList() + " or any");
    }
    return s;
  }

  static long findingId(String id) {
    Long value = parsed(id);
    if (value == null || value < 1) {
      throw new BadInputException("findingId", "a finding id is a positive integer");
    }
    return value;
  }

  /** Where a page of findings starts: after this id, 0 for the first page. */
  static long afterId(String afterId) {
    if (trimmed(afterId) == null) {
      return 0;
    }
    Long value = parsed(afterId);
    if (value == null || value < 0) {
      throw new BadInputException("afterId", "afterId is a non-negative integer");
    }
    return value;
  }

  static String findingAction(String action) {
    if (!"acknowledge".equals(action) && !"resolve".equals(action)) {
      throw new BadInputException("action", "the action is acknowledge or resolve");
    }
    return action;
  }

  /**
   * A finding action's reason: required to resolve, optional to acknowledge (null when not given);
   * at most {@value #MAX_FINDING_REASON} characters, no control characters.
   */
  static String findingReason(String action, String reason) {
    if (trimmed(reason) == null && "acknowledge".equals(action)) {
      return null;
    }
    String r = reason(reason);
    if (r.length() > MAX_FINDING_REASON) {
      throw new BadInputException(
          "reason", "a finding's reason has at most " + MAX_FINDING_REASON + " characters");
    }
    return r;
  }

  /** {@code text} as a long, or null when it is not one (the caller names the field). */
  private static Long parsed(String text) {
    try {
      return text == null ? null : Long.valueOf(text.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Optional job parameters, {@code key=value} pairs separated by commas (batch-support). */
  static String jobParameters(String parameters) {
    String p = trimmed(parameters);
    if (p == null) {
      return null;
    }
    if (p.length() > MAX_PARAMETERS || hasControlCharacter(p)) {
      throw new BadInputException(
          "parameters",
          "parameters are key=value pairs separated by commas, at most "
              + MAX_PARAMETERS
              + " characters, no control characters");
    }
    return p;
  }

  static boolean hasControlCharacter(String text) {
    return text.codePoints().anyMatch(c -> Character.getType(c) == Character.CONTROL);
  }

  private static String trimmed(String text) {
    return text == null || text.isBlank() ? null : text.trim();
  }
}
