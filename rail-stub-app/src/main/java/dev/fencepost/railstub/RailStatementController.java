package dev.fencepost.railstub;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The rail's statement of any period (ADR 0176): {@code GET /rail/statements?bookedFrom=&bookedTo=
 * [&page=1][&pageSize=500]} answers one page of an ISO 20022 camt.053.001.08 document ({@link
 * Camt053Statement}) with the entries booked in {@code [bookedFrom, bookedTo)} that the rail's
 * books show at the time of the request, in rail-reference order. This is what a real rail (or a
 * bank's SFTP drop) gives the reconciler, unlike the stub-only {@code /rail/admin/movements}; it is
 * the reconciler's and an operator's to read (ADR 0146). A period is at most {@value #MAX_DAYS}
 * days and a page at most {@value #MAX_PAGE} entries; anything else is 400 {@code INVALID_PAYMENT}
 * problem+json naming the parameter.
 */
@RestController
class RailStatementController {

  static final int MAX_PAGE = 1000;
  static final int MAX_DAYS = 31;
  static final int DEFAULT_PAGE = 500;

  private static final Logger log = LoggerFactory.getLogger(RailStatementController.class);

  private final MovementBook book;
  private final Clock clock;

  RailStatementController(MovementBook book, Clock clock) {
    this.book = book;
    this.clock = clock;
  }

  @GetMapping(value = "/rail/statements", produces = MediaType.APPLICATION_XML_VALUE)
  ResponseEntity<String> statement(
      @RequestParam(required = false) String bookedFrom,
      @RequestParam(required = false) String bookedTo,
      @RequestParam(name = "page", required = false) String pageText,
      @RequestParam(name = "pageSize", required = false) String pageSizeText) {
    Instant from = instant("bookedFrom", bookedFrom);
    Instant to = instant("bookedTo", bookedTo);
    if (!from.isBefore(to)) {
      throw new InvalidPaymentException("bookedTo", "must be after bookedFrom");
    }
    if (Duration.between(from, to).compareTo(Duration.ofDays(MAX_DAYS)) > 0) {
      throw new InvalidPaymentException("bookedTo", "a period is at most " + MAX_DAYS + " days");
    }
    int page = number("page", pageText, 1, 1, 99_999);
    int pageSize = number("pageSize", pageSizeText, DEFAULT_PAGE, 1, MAX_PAGE);
    Instant now = clock.instant();
    List<Movement> booked = book.booked(from, to, now);
    long skip = (long) (page - 1) * pageSize;
    List<Movement> entries = booked.stream().skip(skip).limit(pageSize).toList();
    boolean last = skip + entries.size() >= booked.size();
    String xml =
        Camt053Statement.xml(
            from,
            to,
            now,
            page,
            last,
            entries,
            book.bookedBefore(from, Camt053Statement.ACCOUNT_CURRENCY, now),
            book.bookedBefore(to, Camt053Statement.ACCOUNT_CURRENCY, now));
    log.atDebug()
        .addKeyValue("event", "rail.stub.statement_served")
        .addKeyValue("bookedFrom", from)
        .addKeyValue("bookedTo", to)
        .addKeyValue("page", page)
        .addKeyValue("entries", entries.size())
        .log("statement page served");
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_XML).body(xml);
  }

  private static Instant instant(String field, String text) {
    if (text == null || text.isBlank()) {
      throw new InvalidPaymentException(field, "is required (an ISO-8601 instant)");
    }
    try {
      return Instant.parse(text);
    } catch (java.time.format.DateTimeParseException e) {
      throw new InvalidPaymentException(field, "must be an ISO-8601 instant");
    }
  }

  private static int number(String field, String text, int absent, int min, int max) {
    if (text == null) {
      return absent;
    }
    try {
      int value = Integer.parseInt(text);
      if (value >= min && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // refused below, as an out-of-range value is
    }
    throw new InvalidPaymentException(field, "must be an integer in " + min + ".." + max);
  }
}
