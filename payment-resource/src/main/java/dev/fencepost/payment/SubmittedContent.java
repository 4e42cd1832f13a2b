package dev.fencepost.payment;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a submission to the rail says about where money goes: the fields the rail proxy records with
 * every submission, compared field by field with the paydb payout that carries the same id.
 *
 * <p>The proxy's uniqueness guard is keyed by payout id only (FR-18), so its record proves that
 * <em>somebody</em> submitted this id, not that the submission was this payout. A worker or the
 * reconciler acts on a proxy record only when {@link #differences} is empty; a mismatch means the
 * id was used for another payment and is left for an operator (ADR 0140).
 *
 * @param accountId the account paid from
 * @param amountMinor the amount in minor units
 * @param currency the currency
 * @param beneficiaryRef where the money goes
 * @param clientReference what the rail sees; for a payout derived from its id ({@link
 *     PayoutId#clientReference()})
 */
public record SubmittedContent(
    String accountId,
    long amountMinor,
    String currency,
    String beneficiaryRef,
    String clientReference) {

  /** The content a submission of {@code payout} carries. */
  public static SubmittedContent of(Payout payout) {
    return new SubmittedContent(
        payout.accountId().value(),
        payout.amountMinor(),
        payout.currency(),
        payout.beneficiaryRef(),
        payout.id().clientReference());
  }

  /**
   * The names of the fields in which {@code recorded} differs from this content; empty when they
   * agree. A field missing from {@code recorded} (null) differs: an answer that cannot show what
   * was submitted proves nothing.
   */
  public List<String> differences(SubmittedContent recorded) {
    List<String> fields = new ArrayList<>(5);
    if (recorded == null) {
      return List.of("accountId", "amountMinor", "currency", "beneficiaryRef", "clientReference");
    }
    if (!Objects.equals(accountId, recorded.accountId)) {
      fields.add("accountId");
    }
    if (amountMinor != recorded.amountMinor) {
      fields.add("amountMinor");
    }
    if (!Objects.equals(currency, recorded.currency)) {
      fields.add("currency");
    }
    if (!Objects.equals(beneficiaryRef, recorded.beneficiaryRef)) {
      fields.add("beneficiaryRef");
    }
    if (!Objects.equals(clientReference, recorded.clientReference)) {
      fields.add("clientReference");
    }
    return List.copyOf(fields);
  }
}
