#!/usr/bin/env sh
# Regenerates the scenario reports in docs/evidence/ (and their timeline SVGs) from real runs:
# UC-03 and its negative-control matrix, UC-04, UC-06, UC-08 (the full 60 s outage) and the INV-04
# restore on both backends, writing to docs/evidence as well as target/. The long tier is switched
# on so that UC-08 takes its lock backend down for the whole 60 s and the etcd restore runs; only
# the classes named here run. The chaos run and the NFR-07 mutations have their own commands at
# the top of docs/evidence/chaos.md and nfr-07.md.
# Run from anywhere; needs the sibling modules installed (./mvnw -B install -DskipTests) or
# run from the root reactor. Extra Maven arguments are passed on (e.g. -o).
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
exec ./mvnw -B -pl experiments verify \
  -Dexperiments.long=true \
  -Dit.test='Uc03PausedHolderIT,Uc04CrashRecoveryIT,Uc06ForceRevokeIT,Uc08LockBackendOutageIT,Inv04RestoreIT,Inv04EtcdRestoreLongIT' \
  -Dexperiments.evidence.dir="$root/docs/evidence" "$@"
