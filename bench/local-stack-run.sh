# Sourced by the benchmarks that run the whole platform through local-stack (run-payout-bench.sh,
# run-capacity.sh, run-growth.sh), after bench/provenance.sh and with OUT set: building what they
# measure, and one run of local-stack with what its report names beside it (ADRs 0183 and 0202).

# The runnable jar the build below makes.
jar() { ls local-stack/target/local-stack-*-exec.jar 2>/dev/null | head -n 1; }

# Builds local-stack and every module it runs from this working tree (-am), so a report measures
# the commit it names.
bench_build_local_stack() {
  echo "Building local-stack and everything it runs (-am) at $1 ..."
  ./mvnw -B -q -pl local-stack -am package -DskipTests -Dspotless.check.skip=true -Djib.skip=true
}

# Runs `java -jar local-stack ARGS...` once as NAME, keeping in $OUT: NAME.command, NAME.log, the
# load average and the CPU probe before and after (NAME.load-before/-after, NAME.probe-before/-after)
# and the wall time in seconds (NAME.wall). A failed run is reported, not fatal: its missing
# summary is what the caller checks.
bench_run_local_stack() {
  local name=$1 started
  shift
  echo "== $name: java -jar $(jar) $*"
  echo "java -jar $(jar) $*" > "$OUT/$name.command"
  bench_loadavg | tee "$OUT/$name.load-before"
  bench_cpu_probe > "$OUT/$name.probe-before"
  started=$SECONDS
  java -jar "$(jar)" "$@" > "$OUT/$name.log" 2>&1 || echo "   (exit code $?: see $OUT/$name.log)"
  echo "$((SECONDS - started))" > "$OUT/$name.wall"
  bench_loadavg > "$OUT/$name.load-after"
  bench_cpu_probe > "$OUT/$name.probe-after"
}
