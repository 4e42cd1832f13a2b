package dev.fencepost.payment;

import dev.fencepost.payment.impl.Accounts;
import dev.fencepost.payment.impl.AuditLog;
import dev.fencepost.payment.impl.Ledger;
import dev.fencepost.payment.impl.PaymentSignals;
import dev.fencepost.payment.impl.Payouts;
import dev.fencepost.payment.impl.Transactions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The platform's entry point for what upstream systems hand it: customer accounts, their funding,
 * and new PENDING payouts. Creating payouts and taking deposits are other systems' business; this
 * is where their results arrive, and the local platform, the experiments and the tests use it to
 * load synthetic data (NFR-12).
 *
 * <p>It is the one writer of paydb that takes no fencing token, and it is kept harmless by
 * construction (docs/decisions/0038-intake-is-the-untokened-entry-point.md): funding is a balanced
 * group from funding-source (the whole ledger still sums to zero), it only adds money, and it is
 * refused with {@link AccountBusyException} while the account has a payout in flight, decided under
 * the account's row lock, so it never interleaves with a holder's critical section. A new PENDING
 * payout changes nothing a holder relies on. Every action is audited with role INTAKE and the
 * caller's identity.
 */
public final class PayoutIntake {

  private static final Pattern BENEFICIARY = Pattern.compile("[A-Za-z0-9:._-]{1,128}");

  private final String loader;
  private final PaymentResourceOptions options;
  private final Transactions transactions;
  private final Accounts accounts;
  private final Payouts payouts;
  private final Ledger ledger;
  private final AuditLog audit;
  private final PaymentSignals signals;

  /** Defaults (EUR), metrics discarded. */
  public PayoutIntake(DataSource dataSource, String loader) {
    this(dataSource, new SimpleMeterRegistry(), PaymentResourceOptions.defaults(), loader);
  }

  /**
   * @param loader who hands the data in, recorded in the audit trail with role INTAKE
   */
  public PayoutIntake(
      DataSource dataSource,
      MeterRegistry meterRegistry,
      PaymentResourceOptions options,
      String loader) {
    this.loader = Checks.identity(loader, "a loader identity");
    this.options = Checks.present(options, "options");
    JdbcClient jdbc = JdbcClient.create(Checks.present(dataSource, "a DataSource"));
    this.signals = new PaymentSignals(Checks.present(meterRegistry, "a MeterRegistry"));
    this.transactions = new Transactions(dataSource);
    this.accounts = new Accounts(jdbc);
    this.payouts = new Payouts(jdbc);
    this.ledger = new Ledger(jdbc, signals);
    this.audit = new AuditLog(jdbc);
  }

  /**
   * Creates a customer account in the deployment's currency, funded with {@code initialFunding}
   * minor units (0 for none) by a balanced group from funding-source.
   */
  public AccountView createAccount(AccountId account, long initialFundingMinor) {
    return guarded(
        "createAccount",
        () -> {
          Checks.present(account, "an account id");
          if (account.isSystemAccount()) {
            throw new InvalidPaymentRequestException(account + " is a reserved system account id");
          }
          if (initialFundingMinor != 0) {
            Checks.amount(initialFundingMinor);
          }
          return transactions.inTransaction(
              () -> {
                try {
                  accounts.insertCustomer(account, options.currency());
                } catch (DuplicateKeyException e) {
                  throw new AlreadyExistsException("account " + account + " already exists");
                }
                audit.record(
                    AuditLog.INTAKE_ROLE,
                    loader,
                    null,
                    account,
                    null,
                    "ACCOUNT_CREATED",
                    null,
                    null,
                    null);
                if (initialFundingMinor > 0) {
                  fundLocked(account, initialFundingMinor);
                }
                return accounts.find(account).orElseThrow();
              });
        },
        created -> {
          signals.accountCreated(account, loader);
          if (initialFundingMinor > 0) {
            signals.accountFunded(account, initialFundingMinor, loader);
          }
        });
  }

  /**
   * Adds {@code amountMinor} to a customer account by a balanced funding group from funding-source.
   *
   * @throws AccountBusyException when the account has a payout in flight
   */
  public AccountView fund(AccountId account, long amountMinor) {
    return guarded(
        "fund",
        () -> {
          Checks.present(account, "an account id");
          Checks.amount(amountMinor);
          return transactions.inTransaction(
              () -> {
                AccountView locked =
                    accounts.lock(account).orElseThrow(() -> new AccountNotFoundException(account));
                if (locked.kind() != AccountView.Kind.CUSTOMER) {
                  throw new InvalidPaymentRequestException("only customer accounts are funded");
                }
                long inFlight = payouts.countInFlight(account);
                if (inFlight > 0) {
                  throw new AccountBusyException(account, inFlight);
                }
                fundLocked(account, amountMinor);
                return accounts.find(account).orElseThrow();
              });
        },
        funded -> signals.accountFunded(account, amountMinor, loader));
  }

  /** Creates a PENDING payout with a fresh id. */
  public Payout createPendingPayout(
      AccountId account, long amountMinor, String currency, String beneficiaryRef) {
    return createPendingPayout(PayoutId.random(), account, amountMinor, currency, beneficiaryRef);
  }

  /**
   * Creates a PENDING payout. Its client reference is derived from {@code id} by paydb.
   *
   * @param currency must be the deployment's single currency
   * @param beneficiaryRef synthetic, {@code [A-Za-z0-9:._-]{1,128}} (NFR-12)
   */
  public Payout createPendingPayout(
      PayoutId id, AccountId account, long amountMinor, String currency, String beneficiaryRef) {
    return guarded(
        "createPendingPayout",
        () -> {
          Checks.present(id, "a payout id");
          Checks.present(account, "an account id");
          Checks.amount(amountMinor);
          if (!options.currency().equals(currency)) {
            throw new CurrencyMismatchException(String.valueOf(currency), options.currency());
          }
          if (beneficiaryRef == null || !BENEFICIARY.matcher(beneficiaryRef).matches()) {
            throw new InvalidPaymentRequestException(
                "a beneficiary reference is synthetic, [A-Za-z0-9:._-]{1,128}, got "
                    + Checks.quote(beneficiaryRef));
          }
          return transactions.inTransaction(
              () -> {
                AccountView owner =
                    accounts.find(account).orElseThrow(() -> new AccountNotFoundException(account));
                if (owner.kind() != AccountView.Kind.CUSTOMER) {
                  throw new InvalidPaymentRequestException(
                      "payouts belong to customer accounts only");
                }
                try {
                  payouts.insertPending(id, account, amountMinor, currency, beneficiaryRef);
                } catch (DuplicateKeyException e) {
                  throw new AlreadyExistsException("payout " + id + " already exists");
                }
                audit.record(
                    AuditLog.INTAKE_ROLE,
                    loader,
                    null,
                    account,
                    id,
                    "PAYOUT_CREATED",
                    null,
                    PayoutState.PENDING,
                    null);
                return payouts.find(id).orElseThrow();
              });
        },
        created -> signals.payoutCreated(id, account, amountMinor, loader));
  }

  private void fundLocked(AccountId account, long amountMinor) {
    ledger.fund(account, amountMinor, loader);
    audit.record(
        AuditLog.INTAKE_ROLE,
        loader,
        null,
        account,
        null,
        "ACCOUNT_FUNDED",
        null,
        null,
        "funded " + amountMinor + " from " + AccountId.FUNDING_SOURCE);
  }

  /** Runs {@code work}; reports a refusal, or the committed result to {@code afterCommit}. */
  private <T> T guarded(String operation, Supplier<T> work, Consumer<T> afterCommit) {
    T result;
    try {
      result = work.get();
    } catch (LedgerImbalanceException e) {
      throw e;
    } catch (PaymentResourceException e) {
      signals.requestRejected(operation, e);
      throw e;
    }
    afterCommit.accept(result);
    return result;
  }
}
