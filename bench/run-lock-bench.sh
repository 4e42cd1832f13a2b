#!/usr/bin/env bash
# The one command of the lock benchmark: builds the bench and everything it measures from this
# working tree (-am: the lock server's jar included), runs the whole suite (floors, E1-E3, P1-P4,
# interleaved, on one embedded PostgreSQL and one etcd member) and rewrites the "Lock benchmarks"
# section of docs/benchmarks.md (between its markers) and docs/benchmarks-lock-latency.png. The
# report names the commit and the load average before and after (ADR 0183).
# The defaults give every cell at least 10 s (2 rounds x 5 s, each after a 1-s warm-up, extended up
# to 15 s while short of 2,000 samples), after 120 s of load on each lock server: about 24 minutes
# on a quiet machine. Run it only on one.
# Extra -D options are passed to the harness JVM, for example a smoke size (seconds, not evidence:
# the report says so):
#   bench/run-lock-bench.sh -Dbench.rounds=1 -Dbench.seconds=0.2 -Dbench.maxSeconds=0.2 \
#     -Dbench.warmupSeconds=0 -Dbench.initialWarmupSeconds=0 -Dbench.serverWarmupSeconds=0 -Dbench.sessions=100 \
#     -Dbench.heartbeatSeconds=1 -Dbench.out=/tmp/lock-bench.md
#   bench/run-lock-bench.sh -Dbench.serverJvmArgs="-XX:StartFlightRecording=filename=bench/target/{server}.jfr"
# ({server} becomes each lock server's name: one recording per JVM)
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/use-jdk.sh && use_build_jdk
. bench/provenance.sh
commit=$(bench_commit)
./mvnw -B -q -pl bench -am -DskipTests -Dspotless.check.skip=true -Djib.skip=true \
  package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
bench_await_quiet
start=$(date +%s)
java -Xms512m -Xmx2g -Djava.awt.headless=true -Dlogback.configurationFile=bench/logback-harness.xml \
  -Dfencepost.apps.dir=bench/target/apps \
  -Dbench.commit="$commit" \
  -Dbench.command="bench/run-lock-bench.sh${*:+ $*}" "$@" \
  -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.fencepost.bench.LockBench
echo "suite wall time: $(( $(date +%s) - start )) s"
