#!/usr/bin/env bash
# The one command of the lock benchmark: runs the whole suite (floors, E1-E3, P1-P4,
# interleaved, on one embedded PostgreSQL and one etcd member) and rewrites the "Lock benchmarks"
# section of docs/benchmarks.md (between its markers) and docs/benchmarks-lock-latency.png.
# Bounded to about 10 minutes. Extra -D options are passed to the harness JVM, for example
#   bench/run-lock-bench.sh -Dbench.rounds=1 -Dbench.seconds=1 -Dbench.sessions=2000
#   bench/run-lock-bench.sh -Dbench.serverJvmArgs="-XX:StartFlightRecording=filename=bench/target/server.jfr"
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B -q -pl bench -DskipTests -Dspotless.check.skip=true \
  compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
start=$(date +%s)
java -Xms512m -Xmx2g -Djava.awt.headless=true -Dlogback.configurationFile=bench/logback-harness.xml \
  -Dfencepost.apps.dir=bench/target/apps \
  -Dbench.command="bench/run-lock-bench.sh${*:+ $*}" "$@" \
  -cp "bench/target/classes:$(cat bench/target/classpath.txt)" dev.fencepost.bench.LockBench
echo "suite wall time: $(( $(date +%s) - start )) s"
