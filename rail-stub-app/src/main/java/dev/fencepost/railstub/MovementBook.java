package dev.fencepost.railstub;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Every movement the rail made, in memory: the ground truth (docs/rail.md). */
public final class MovementBook {

  private final List<Movement> movements = new ArrayList<>();
  // Never reset, so a rail reference stays unique even across DELETE /rail/admin/movements.
  private final AtomicLong sequence = new AtomicLong();

  /** Records a new movement; a repeated client reference is deliberately a second movement. */
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
