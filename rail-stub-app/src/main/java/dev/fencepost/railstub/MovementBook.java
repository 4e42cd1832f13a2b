package dev.fencepost.railstub;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every movement the rail made, in memory: the ground truth (docs/rail.md). Bounded: at {@code max}
 * movements a payment is refused ({@link RailBookFullException}) rather than the heap filled.
 */
public final class MovementBook {

  private final List<Movement> movements = new ArrayList<>();
  private final int max;
  // Never reset, so a rail reference stays unique even across DELETE /rail/admin/movements.
  private final AtomicLong sequence = new AtomicLong();

  /**
   * @param max the most movements the book holds (fencepost.stub.max-movements)
   */
  public MovementBook(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("fencepost.stub.max-movements must be at least 1");
    }
    this.max = max;
  }

  public int max() {
    return max;
  }

  /**
   * Refuses up front when the book is full, so that a refused payment is not even counted as an
   * attempt.
   *
   * @throws RailBookFullException when the book holds {@link #max()} movements
   */
  public void requireRoom() {
    if (size() >= max) {
      throw new RailBookFullException("movements", max);
    }
  }

  /**
   * Records a new movement; a repeated client reference is deliberately a second movement.
   *
   * @throws RailBookFullException when the book is full (checked again here: concurrent payments
   *     may have filled it since {@link #requireRoom()})
   */
  public Movement settle(PaymentRequest payment, Instant now, Duration lookupLag) {
    Movement movement =
        new Movement(
            String.format("RAIL-%010d", sequence.incrementAndGet()),
            payment.clientReference(),
            payment.amountMinor(),
            payment.currency(),
            payment.beneficiaryRef(),
            "SETTLED",
            now,
            now.plus(lookupLag));
    synchronized (movements) {
      if (movements.size() >= max) {
        throw new RailBookFullException("movements", max);
      }
      movements.add(movement);
    }
    return movement;
  }

  /** What the rail's lookup shows at {@code now}: only movements past their visibility lag. */
  public List<Movement> visible(String clientReference, Instant now) {
    synchronized (movements) {
      return movements.stream()
          .filter(m -> m.clientReference().equals(clientReference))
          .filter(m -> !m.visibleAt().isAfter(now))
          .toList();
    }
  }

  /** Every movement, visible or not, optionally for one client reference. */
  public List<Movement> all(String clientReferenceOrNull) {
    synchronized (movements) {
      return movements.stream()
          .filter(
              m ->
                  clientReferenceOrNull == null
                      || m.clientReference().equals(clientReferenceOrNull))
          .toList();
    }
  }

  /**
   * A page of the statement in rail-reference order: movements after {@code afterOrNull} (a rail
   * reference), received in {@code [fromOrNull, toOrNull)}, of the given client references (null:
   * any), at most {@code limit}.
   */
  public List<Movement> page(
      Set<String> clientReferencesOrNull,
      Instant fromOrNull,
      Instant toOrNull,
      String afterOrNull,
      int limit) {
    synchronized (movements) {
      // The book is in rail-reference order: references are zero-padded and only ever grow.
      return movements.stream()
          .filter(m -> afterOrNull == null || m.railReference().compareTo(afterOrNull) > 0)
          .filter(
              m ->
                  clientReferencesOrNull == null
                      || clientReferencesOrNull.contains(m.clientReference()))
          .filter(m -> fromOrNull == null || !m.receivedAt().isBefore(fromOrNull))
          .filter(m -> toOrNull == null || m.receivedAt().isBefore(toOrNull))
          .limit(limit)
          .toList();
    }
  }

  /**
   * What the statement of {@code [from, to)} shows at {@code now}: the movements booked (received)
   * in the period that the rail's books already show (past their visibility lag, the same as the
   * lookup's, A-08), in rail-reference order. A movement booked in the period but not yet visible
   * appears on a later request for the same period: a late entry.
   */
  public List<Movement> booked(Instant from, Instant to, Instant now) {
    synchronized (movements) {
      return movements.stream()
          .filter(m -> !m.receivedAt().isBefore(from) && m.receivedAt().isBefore(to))
          .filter(m -> !m.visibleAt().isAfter(now))
          .toList();
    }
  }

  /**
   * The sum of the amounts in {@code currency} of the movements booked before {@code instant} and
   * visible at {@code now}: the statement's opening (or closing) booked balance, every movement a
   * debit of the one account the stub pays from.
   */
  public long bookedBefore(Instant instant, String currency, Instant now) {
    synchronized (movements) {
      return movements.stream()
          .filter(m -> m.receivedAt().isBefore(instant) && !m.visibleAt().isAfter(now))
          .filter(m -> m.currency().equals(currency))
          .mapToLong(Movement::amountMinor)
          .sum();
    }
  }

  public int size() {
    synchronized (movements) {
      return movements.size();
    }
  }

  public void clear() {
    synchronized (movements) {
      movements.clear();
    }
  }

  /** A defensive copy for callers that iterate. */
  List<Movement> snapshot() {
    synchronized (movements) {
      return new ArrayList<>(movements);
    }
  }
}
