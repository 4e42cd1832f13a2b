package dev.fencepost.experiments.worker;

import dev.fencepost.history.HistoryRecorder;
import dev.fencepost.history.Records;
import dev.fencepost.payoutjob.PayoutEffectListener;

/** Writes each attempted side effect as the history checker's {@code effect} record. */
final class HistoryEffectListener implements PayoutEffectListener {

  private final HistoryRecorder recorder;
  private final String workerId;

  HistoryEffectListener(HistoryRecorder recorder, String workerId) {
    this.recorder = recorder;
    this.workerId = workerId;
  }

  @Override
  public void attempted(Effect effect) {
    recorder.record(
        new Records.Effect(
            workerId,
            workerId,
            effect.payoutId().toString(),
            effect.accountId().value(),
            effect.what().name(),
            effect.token(),
            effect.outcome(),
            effect.nanos(),
            effect.at()));
  }
}
