package dev.fencepost.payment.testkit;

import dev.fencepost.payment.Payout;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Somebody else's submission under a real payout's id (ADR 0140), as the body of a {@code POST
 * /v1/submissions} to the rail proxy. Its fencing token is {@link #FENCING_TOKEN}, below any the
 * lock server grants, so the payout's own worker still passes the proxy's high-water check and
 * meets the uniqueness guard instead. The payout-job and reconciliation-job tests both stage it;
 * each signs its grant with its platform's lock-server key (ADR 0137) and sends it with its own
 * HTTP client.
 */
public final class CompetingSubmission {

  /** The token it is submitted under; its grant must be signed for this token. */
  public static final long FENCING_TOKEN = 1;

  private CompetingSubmission() {}

  /**
   * The payout's ids and currency, with {@code amountMinor} and {@code beneficiaryRef} given, and
   * {@code grant}: the lock server's signed grant for the payout's lock key and {@link
   * #FENCING_TOKEN}.
   */
  public static Map<String, Object> body(
      Payout payout, long amountMinor, String beneficiaryRef, String grant) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("payoutId", payout.id().toString());
    body.put("accountId", payout.accountId().value());
    body.put("fencingToken", FENCING_TOKEN);
    body.put("clientReference", payout.clientReference());
    body.put("amountMinor", amountMinor);
    body.put("currency", payout.currency());
    body.put("beneficiaryRef", beneficiaryRef);
    body.put("grant", grant);
    return body;
  }
}
