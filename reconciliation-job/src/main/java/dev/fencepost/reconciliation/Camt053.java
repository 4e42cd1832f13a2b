package dev.fencepost.reconciliation;

import com.prowidesoftware.swift.model.mx.MxCamt05300108;
import com.prowidesoftware.swift.model.mx.dic.AccountStatement9;
import com.prowidesoftware.swift.model.mx.dic.BankToCustomerStatementV08;
import com.prowidesoftware.swift.model.mx.dic.EntryTransaction10;
import com.prowidesoftware.swift.model.mx.dic.ReportEntry10;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a camt.053.001.08 document with the Prowide ISO 20022 model (ADR 0176), never by hand: the
 * booked debit entries of every statement in it, and whether it is the last page. The client
 * reference is {@code EndToEndId}, or the first unstructured remittance line when the rail had to
 * write {@code NOTPROVIDED} (a reference longer than the field); the beneficiary is {@code
 * RltdPties/Cdtr}'s name. An entry that is not booked ({@code Sts} other than {@code BOOK}), is a
 * credit or a reversal is not money that left, and is skipped; a document that is not a
 * camt.053.001.08, or an entry without a reference, amount or booking time, is refused.
 */
final class Camt053 {

  static final String NOT_PROVIDED = "NOTPROVIDED";

  /** A parsed document: its entries and whether its last statement is the last page. */
  record Document(List<StatementEntry> entries, boolean lastPage) {}

  private Camt053() {}

  static Document read(String xml, String source) {
    MxCamt05300108 mx;
    try {
      mx = MxCamt05300108.parse(xml);
    } catch (RuntimeException e) {
      throw new SourceUnavailableException(source + ": not a readable camt.053.001.08: " + e, e);
    }
    BankToCustomerStatementV08 body = mx == null ? null : mx.getBkToCstmrStmt();
    if (body == null || body.getStmt().isEmpty()) {
      throw new SourceUnavailableException(source + ": not a camt.053.001.08 statement");
    }
    List<StatementEntry> entries = new ArrayList<>();
    boolean last = true;
    for (AccountStatement9 statement : body.getStmt()) {
      for (ReportEntry10 entry : statement.getNtry()) {
        StatementEntry read = entry(entry, source);
        if (read != null) {
          entries.add(read);
        }
      }
      last = statement.getStmtPgntn() == null || statement.getStmtPgntn().isLastPgInd();
    }
    return new Document(entries, last);
  }

  private static StatementEntry entry(ReportEntry10 entry, String source) {
    if (entry.getSts() == null
        || !"BOOK".equals(entry.getSts().getCd())
        || entry.getCdtDbtInd() == null
        || !"DBIT".equals(entry.getCdtDbtInd().name())
        || Boolean.TRUE.equals(entry.isRvslInd())) {
      return null;
    }
    String ref = entry.getNtryRef() != null ? entry.getNtryRef() : entry.getAcctSvcrRef();
    if (ref == null
        || entry.getAmt() == null
        || entry.getAmt().getValue() == null
        || entry.getBookgDt() == null
        || entry.getBookgDt().getDtTm() == null) {
      throw new SourceUnavailableException(
          source + ": an entry without a reference, an amount or a booking time (" + ref + ")");
    }
    EntryTransaction10 tx =
        entry.getNtryDtls().isEmpty() || entry.getNtryDtls().get(0).getTxDtls().isEmpty()
            ? null
            : entry.getNtryDtls().get(0).getTxDtls().get(0);
    String endToEnd = tx == null || tx.getRefs() == null ? null : tx.getRefs().getEndToEndId();
    if ((endToEnd == null || NOT_PROVIDED.equals(endToEnd))
        && tx != null
        && tx.getRmtInf() != null
        && !tx.getRmtInf().getUstrd().isEmpty()) {
      endToEnd = tx.getRmtInf().getUstrd().get(0);
    }
    String beneficiary =
        tx == null
                || tx.getRltdPties() == null
                || tx.getRltdPties().getCdtr() == null
                || tx.getRltdPties().getCdtr().getPty() == null
            ? null
            : tx.getRltdPties().getCdtr().getPty().getNm();
    return new StatementEntry(
        ref,
        endToEnd == null ? NOT_PROVIDED : endToEnd,
        minor(entry.getAmt().getValue(), ref, source),
        entry.getAmt().getCcy(),
        beneficiary,
        entry.getBookgDt().getDtTm().toInstant());
  }

  /** Two decimal places (A-06: the deployment's one currency has minor units of 1/100). */
  private static long minor(BigDecimal amount, String ref, String source) {
    try {
      return amount.movePointRight(2).longValueExact();
    } catch (ArithmeticException e) {
      throw new SourceUnavailableException(
          source + ": entry " + ref + " has an amount of more than two decimals: " + amount, e);
    }
  }
}
