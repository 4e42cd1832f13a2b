package dev.fencepost.experiments.restore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencepost.experiments.harness.EvidenceAfterAllPassed;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link Inv04RestoreIT}'s scenario on the etcd backend: backup = a copy of the killed member's
 * data directory, restore = put back, procedure = {@code fencepost.lock.etcd.revision-floor} (ADR
 * 0016). Long tier ({@code -Dexperiments.long=true}): eight more JVM starts than the CI tier's
 * budget allows; the etcd restore path itself stays in CI through lock-server's EtcdRestoreTest.
 */
@Tag("INV-04")
class Inv04EtcdRestoreLongIT {

  @RegisterExtension
  static final EvidenceAfterAllPassed EVIDENCE =
      new EvidenceAfterAllPassed(
          EvidenceAfterAllPassed.testMethodsOf(Inv04EtcdRestoreLongIT.class),
          () -> RestoreEvidence.write(Inv04RestoreIT.RESULTS));

  @Test
  void
      etcdRestoreReissuesRevisionsTheGuardsRefuseUntilTheRevisionFloorPutsEveryNewTokenAboveEveryOld() {
    Inv04RestoreIT.Outcome o =
        Inv04RestoreIT.restore(
            Inv04EtcdRestoreLongIT.class,
            "inv04-restore-etcd",
            "INV-04: etcd restored from a data-directory backup (etcd backend)",
            RestoreTarget.Etcd::new);
    Inv04RestoreIT.assertHazardThenProcedure(o);
    assertThat(Inv04RestoreIT.logOf(o, "procedure"))
        .anyMatch(l -> l.contains("lock.etcd.revision_advanced"));
    Inv04RestoreIT.RESULTS.put(o.run().scenario(), o);
  }
}
