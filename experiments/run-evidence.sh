#!/usr/bin/env sh
# Regenerates docs/evidence/uc03.md and uc04.md (and their timeline SVGs) from real runs:
# the UC-03 and UC-04 experiments of this module, writing to docs/evidence as well as target/.
# Run from anywhere; needs the sibling modules installed (./mvnw -B install -DskipTests) or
# run from the root reactor. Extra Maven arguments are passed on (e.g. -o).
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
exec ./mvnw -B -pl experiments verify \
  -Dit.test='Uc03PausedHolderIT,Uc04CrashRecoveryIT' \
  -Dexperiments.evidence.dir="$root/docs/evidence" "$@"
