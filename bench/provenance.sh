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
