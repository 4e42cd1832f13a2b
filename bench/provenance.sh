# Sourced by bench/run-*.sh: what every benchmark report names (ADR 0183).

# The commit the script builds and measures: the sha, and "(dirty: paths...)" naming up to five
# changed paths when the working tree differs from it (as Provenance.describe in the harness).
bench_commit() {
  local sha changed n shown more=""
  if ! sha=$(git rev-parse HEAD 2>/dev/null); then
    echo unknown
    return
  fi
  changed=$(git status --porcelain 2>/dev/null | cut -c4-)
  if [ -z "$changed" ]; then
    echo "$sha"
    return
  fi
  n=$(printf '%s\n' "$changed" | wc -l)
  shown=$(printf '%s\n' "$changed" | head -n 5 | paste -sd, - | sed 's/,/, /g')
  [ "$n" -gt 5 ] && more=", ..."
  echo "$sha (dirty: $shown$more)"
}

# 1-, 5- and 15-minute load averages from /proc/loadavg.
bench_loadavg() {
  cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'
}

# Waits until the 1-minute load average is below 1, as a run must start on a quiet machine: the
# build each script makes first leaves it at 2 to 3, and a report of the lock benchmark started
# straight after its build at 1.66. Gives up after BENCH_QUIET_SECONDS (600) and goes on, saying
# "(not quiet)"; either way it prints the load the run starts at, which the report names as well.
# BENCH_LOADAVG_FILE replaces /proc/loadavg for a test.
bench_await_quiet() {
  local file=${BENCH_LOADAVG_FILE:-/proc/loadavg} limit=${BENCH_QUIET_SECONDS:-600}
  local start=$SECONDS load
  while load=$(cut -d' ' -f1 "$file") && awk -v l="$load" 'BEGIN { exit !(l >= 1) }'; do
    if [ $((SECONDS - start)) -ge "$limit" ]; then
      echo "load $load after ${limit} s of waiting (not quiet)"
      return 0
    fi
    sleep 5
  done
  echo "load $load after $((SECONDS - start)) s of waiting"
}

# How fast this machine's CPU is right now: the CPU milliseconds (not wall time) that one fixed,
# single-threaded piece of work takes, the median of three. On a virtual machine that shares its
# host, the same work can take twice the CPU time at one hour as at another; a benchmark records
# this beside its figures so that runs compared across time can be told apart from such a drift
# (ADR 0202). Lower is faster.
#
# The probe first waits, up to two minutes, for five seconds in a row with the CPUs at least 90 %
# idle: work still ending (a platform's processes exiting, its data directories being deleted)
# made the same probe read 290-333 ms seconds after it had read 200. A probe that never found the
# machine quiet says so ("busy") rather than pass as a reading of its speed.
bench_cpu_probe() {
  python3 - <<'PY' 2>/dev/null || echo '?'
import time
def cpu_times():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v), v[3] + v[4]  # total, idle + iowait
quiet, deadline = 0, time.monotonic() + 120
total, idle = cpu_times()
while quiet < 5 and time.monotonic() < deadline:
    time.sleep(1)
    t, i = cpu_times()
    quiet = quiet + 1 if (i - idle) >= 0.9 * max(t - total, 1) else 0
    total, idle = t, i
def work():
    d, s = {}, 0
    for i in range(1_500_000):
        d[i & 4095] = d.get(i & 4095, 0) + i
        s += i * 7 % 13
    return s
runs = []
for _ in range(3):
    t = time.process_time()
    work()
    runs.append((time.process_time() - t) * 1000)
print(f"{sorted(runs)[1]:.0f}" + ("" if quiet >= 5 else " (busy)"))
PY
}
