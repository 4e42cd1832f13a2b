package dev.fencepost.payment;

/**
 * The in-transaction ledger assertion failed (INV-03): a group did not sum to zero, or an account's
 * balance differed from the sum of its entries. The transaction was rolled back; this is a defect
 * or a corruption signal, never a retryable condition.
 */
public class LedgerImbalanceException extends PaymentResourceException {

  public LedgerImbalanceException(String message) {
    super(message);
  }

  @Override
  public String code() {
    return "LEDGER_IMBALANCE";
  }
}
