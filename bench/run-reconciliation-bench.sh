#!/usr/bin/env bash
# The reconciliation benchmark (ADR 0178, 0187): 1,000,000 payouts with their postings, submissions
# and statement entries, and a sprinkle of every class they show, reconciled as the job does it
# (the chunk-oriented statement pass, then the paged comparison) on embedded PostgreSQL in a 512 MB
# heap (the target's bound; a later -Xmx argument overrides it); prints each phase's time, the
# heap's peak and found against planted, after a header naming the commit built and measured and
# the load average before and after (ADR 0183). Builds from this working tree with -am. Not part of
# the test build (minutes, and the machine is shared): the test command runs
# ReconciliationBenchSmokeTest instead. Sizes: -Dbench.payouts=N -Dbench.chunk=N -Dbench.planted=N.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/use-jdk.sh && use_build_jdk
. bench/provenance.sh
commit=$(bench_commit)
./mvnw -B -q -pl bench -am -DskipTests -Dspotless.check.skip=true -Djib.skip=true \
  package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
java -Xmx512m -Dlogback.configurationFile=bench/logback-harness.xml -Dbench.commit="$commit" "$@" \
  -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.fencepost.bench.ReconciliationBench
