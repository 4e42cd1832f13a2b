package dev.fencepost.railstub;

import com.prowidesoftware.swift.model.mx.MxCamt05300108;
import com.prowidesoftware.swift.model.mx.dic.AccountIdentification4Choice;
import com.prowidesoftware.swift.model.mx.dic.AccountStatement9;
import com.prowidesoftware.swift.model.mx.dic.ActiveOrHistoricCurrencyAndAmount;
import com.prowidesoftware.swift.model.mx.dic.BalanceType10Choice;
import com.prowidesoftware.swift.model.mx.dic.BalanceType13;
import com.prowidesoftware.swift.model.mx.dic.BankToCustomerStatementV08;
import com.prowidesoftware.swift.model.mx.dic.BankTransactionCodeStructure4;
import com.prowidesoftware.swift.model.mx.dic.BankTransactionCodeStructure5;
import com.prowidesoftware.swift.model.mx.dic.BankTransactionCodeStructure6;
import com.prowidesoftware.swift.model.mx.dic.CashAccount39;
import com.prowidesoftware.swift.model.mx.dic.CashBalance8;
import com.prowidesoftware.swift.model.mx.dic.CreditDebitCode;
import com.prowidesoftware.swift.model.mx.dic.DateAndDateTime2Choice;
import com.prowidesoftware.swift.model.mx.dic.DateTimePeriod1;
import com.prowidesoftware.swift.model.mx.dic.EntryDetails9;
import com.prowidesoftware.swift.model.mx.dic.EntryStatus1Choice;
import com.prowidesoftware.swift.model.mx.dic.EntryTransaction10;
import com.prowidesoftware.swift.model.mx.dic.GenericAccountIdentification1;
import com.prowidesoftware.swift.model.mx.dic.GroupHeader81;
import com.prowidesoftware.swift.model.mx.dic.Pagination1;
import com.prowidesoftware.swift.model.mx.dic.Party40Choice;
import com.prowidesoftware.swift.model.mx.dic.PartyIdentification135;
import com.prowidesoftware.swift.model.mx.dic.RemittanceInformation16;
import com.prowidesoftware.swift.model.mx.dic.TransactionParties6;
import com.prowidesoftware.swift.model.mx.dic.TransactionReferences6;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

/**
 * One page of the rail's statement as an ISO 20022 camt.053.001.08 (BankToCustomerStatementV08)
 * document, built with the Prowide model (ADR 0176): what a bank's statement or its SFTP drop
 * carries, and all the reconciler reads of the rail. Every movement is one booked debit entry:
 *
 * <ul>
 *   <li>{@code NtryRef} and {@code AcctSvcrRef}: the rail reference, unique per movement;
 *   <li>{@code Amt}/{@code @Ccy}: the amount, minor units as a decimal with two places;
 *   <li>{@code BookgDt/DtTm}: when the rail settled it;
 *   <li>{@code NtryDtls/TxDtls/Refs/EndToEndId}: the client reference (the payout's), or {@code
 *       NOTPROVIDED} when it is longer than the 35 characters the field holds, the reference then
 *       being the remittance line {@code RmtInf/Ustrd};
 *   <li>{@code RltdPties/Cdtr/Pty/Nm}: the beneficiary reference.
 * </ul>
 *
 * The opening and closing booked balances are the sums of the account currency's debits before the
 * period and before its end; pagination is {@code StmtPgntn}.
 */
final class Camt053Statement {

  /** The one account the stub pays from, as the statement names it. */
  static final String ACCOUNT = "FENCEPOST-RAIL-OUT";

  /** The account's currency, in which the balances are summed (A-06: one currency). */
  static final String ACCOUNT_CURRENCY = "EUR";

  static final String NOT_PROVIDED = "NOTPROVIDED";

  private static final int END_TO_END_MAX = 35;

  private Camt053Statement() {}

  /**
   * @param page 1-based
   * @param last whether no entry of the period follows this page
   */
  static String xml(
      Instant from,
      Instant to,
      Instant now,
      int page,
      boolean last,
      List<Movement> entries,
      long openingMinor,
      long closingMinor) {
    OffsetDateTime created = utc(now);
    String id = "STMT-" + from.getEpochSecond() + "-" + to.getEpochSecond();
    AccountStatement9 statement =
        new AccountStatement9()
            .setId(id)
            .setStmtPgntn(new Pagination1().setPgNb(Integer.toString(page)).setLastPgInd(last))
            .setCreDtTm(created)
            .setFrToDt(new DateTimePeriod1().setFrDtTm(utc(from)).setToDtTm(utc(to)))
            .setAcct(
                new CashAccount39()
                    .setId(
                        new AccountIdentification4Choice()
                            .setOthr(new GenericAccountIdentification1().setId(ACCOUNT)))
                    .setCcy(ACCOUNT_CURRENCY))
            .addBal(balance("OPBD", openingMinor, from))
            .addBal(balance("CLBD", closingMinor, to));
    for (Movement m : entries) {
      statement.addNtry(entry(m));
    }
    BankToCustomerStatementV08 body =
        new BankToCustomerStatementV08()
            .setGrpHdr(
                new GroupHeader81()
                    .setMsgId("MSG-" + from.getEpochSecond() + "-" + page)
                    .setCreDtTm(created))
            .addStmt(statement);
    return new MxCamt05300108().setBkToCstmrStmt(body).document();
  }

  private static com.prowidesoftware.swift.model.mx.dic.ReportEntry10 entry(Movement m) {
    boolean fits = m.clientReference().length() <= END_TO_END_MAX;
    EntryTransaction10 tx =
        new EntryTransaction10()
            .setRefs(
                new TransactionReferences6()
                    .setAcctSvcrRef(m.railReference())
                    .setEndToEndId(fits ? m.clientReference() : NOT_PROVIDED))
            .setAmt(amount(m.amountMinor(), m.currency()))
            .setCdtDbtInd(CreditDebitCode.DBIT)
            .setRltdPties(
                new TransactionParties6()
                    .setCdtr(
                        new Party40Choice()
                            .setPty(new PartyIdentification135().setNm(m.beneficiaryRef()))));
    if (!fits) {
      tx.setRmtInf(new RemittanceInformation16().addUstrd(m.clientReference()));
    }
    return new com.prowidesoftware.swift.model.mx.dic.ReportEntry10()
        .setNtryRef(m.railReference())
        .setAmt(amount(m.amountMinor(), m.currency()))
        .setCdtDbtInd(CreditDebitCode.DBIT)
        .setSts(new EntryStatus1Choice().setCd("BOOK"))
        .setBookgDt(new DateAndDateTime2Choice().setDtTm(utc(m.receivedAt())))
        .setValDt(new DateAndDateTime2Choice().setDt(utc(m.receivedAt()).toLocalDate()))
        .setAcctSvcrRef(m.railReference())
        .setBkTxCd(
            new BankTransactionCodeStructure4()
                .setDomn(
                    new BankTransactionCodeStructure5()
                        .setCd("PMNT")
                        .setFmly(
                            new BankTransactionCodeStructure6()
                                .setCd("ICDT")
                                .setSubFmlyCd("DMCT"))))
        .addNtryDtls(new EntryDetails9().addTxDtls(tx));
  }

  private static CashBalance8 balance(String type, long minor, Instant at) {
    return new CashBalance8()
        .setTp(new BalanceType13().setCdOrPrtry(new BalanceType10Choice().setCd(type)))
        .setAmt(amount(minor, ACCOUNT_CURRENCY))
        .setCdtDbtInd(CreditDebitCode.DBIT)
        .setDt(new DateAndDateTime2Choice().setDtTm(utc(at)));
  }

  private static ActiveOrHistoricCurrencyAndAmount amount(long minor, String currency) {
    return new ActiveOrHistoricCurrencyAndAmount()
        .setValue(BigDecimal.valueOf(minor, 2))
        .setCcy(currency);
  }

  private static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }
}
