# Sourced by the benchmarks that run the whole platform through local-stack (run-payout-bench.sh,
# run-capacity.sh, run-growth.sh): where a run keeps its results, building what they measure, and
# one run of local-stack with what its report names beside it (ADRs 0183 and 0202). The functions
# that run or measure need bench/provenance.sh sourced and OUT set.

# Sets OUT and REPORT_ONLY from the script's arguments: `--report DIR` writes the section again from
# the results an earlier run kept in DIR, building and measuring nothing (REPORT_ONLY=1, ADR 0234);
# otherwise a run keeps its results in $OUT, or in a new directory /tmp/PREFIX-XXXXXX.
bench_results_dir() {
  local prefix=$1
  shift
  if [ "${1:-}" = "--report" ]; then
    OUT=${2:?usage: $0 --report DIR}
    REPORT_ONLY=1
  else
    OUT=${OUT:-$(mktemp -d "/tmp/$prefix-XXXXXX")}
    REPORT_ONLY=
  fi
}

# The runnable jar the build below makes.
jar() { ls local-stack/target/local-stack-*-exec.jar 2>/dev/null | head -n 1; }

# Builds local-stack and every module it runs from this working tree (-am), so a report measures
# the commit it names.
bench_build_local_stack() {
  echo "Building local-stack and everything it runs (-am) at $1 ..."
  ./mvnw -B -q -pl local-stack -am package -DskipTests -Dspotless.check.skip=true -Djib.skip=true
}

# Waits until the 1-minute load average is below QUIET_LOAD (default 1), for at most
# QUIET_WAIT_SECONDS (default 900), and writes the seconds waited to FILE. Shapes run back to back:
# the previous shape's 32 to 96 payout threads leave a load of 20 to 60 behind them, which decays
# in about four minutes, and a shape started into it is measured on a machine that is not quiet.
# A wait that runs out is written as "N (load still L)" and the shape runs anyway: the report
# carries its load before, so a shape started busy says so.
bench_wait_for_quiet() {
  local file=$1 limit=${QUIET_LOAD:-1} budget=${QUIET_WAIT_SECONDS:-900} started=$SECONDS
  while awk -v limit="$limit" '{exit !($1 >= limit)}' /proc/loadavg; do
    if [ $((SECONDS - started)) -ge "$budget" ]; then
      echo "$((SECONDS - started)) (load still $(cut -d' ' -f1 /proc/loadavg))" > "$file"
      return
    fi
    sleep 5
  done
  echo "$((SECONDS - started))" > "$file"
}

# Runs `java -jar local-stack ARGS...` once as NAME, once the machine is quiet (above), keeping in
# $OUT: NAME.command, NAME.quiet-wait, NAME.log, the
# load average and the CPU probe before and after (NAME.load-before/-after, NAME.probe-before/-after)
# and the wall time in seconds (NAME.wall). A failed run is reported, not fatal: its missing
# summary is what the caller checks.
bench_run_local_stack() {
  local name=$1 started
  shift
  echo "== $name: java -jar $(jar) $*"
  echo "java -jar $(jar) $*" > "$OUT/$name.command"
  bench_wait_for_quiet "$OUT/$name.quiet-wait"
  bench_loadavg | tee "$OUT/$name.load-before"
  bench_cpu_probe > "$OUT/$name.probe-before"
  started=$SECONDS
  java -jar "$(jar)" "$@" > "$OUT/$name.log" 2>&1 || echo "   (exit code $?: see $OUT/$name.log)"
  echo "$((SECONDS - started))" > "$OUT/$name.wall"
  bench_loadavg > "$OUT/$name.load-after"
  bench_cpu_probe > "$OUT/$name.probe-after"
}
