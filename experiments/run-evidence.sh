#!/usr/bin/env sh
# Regenerates scenario reports in docs/evidence/ (and their timeline SVGs) from real runs, writing
# to docs/evidence as well as experiments/target/evidence. Each report names, at its top, the commit
# it was generated from and the command that regenerates it: this script with the test classes
# whose runs it shows. A report is written only once every run of its class has passed.
#
#   experiments/run-evidence.sh                                  # the reports listed below
#   experiments/run-evidence.sh Uc03PausedHolderIT               # one class's report
#   experiments/run-evidence.sh --ci-tier Uc08LockBackendOutageIT   # as the CI tier runs it
#   experiments/run-evidence.sh Uc04CrashRecoveryIT -o           # Maven arguments are passed on
#   experiments/run-evidence.sh 'GameDays*IT'                    # the game days (./fencepost game-days)
#
# A class name may be a failsafe pattern (quote it). The game days are five classes
# (GameDaysGuardsIT, GameDaysLockServiceIT, GameDaysReconciliationIT, GameDaysPayoutsIT,
# GameDaysDashboardsIT) that write one report, docs/evidence/game-days.md, once all of them passed
# in the same run: name them all ('GameDays*IT'); one class alone writes nothing.
#
# With no class named: UC-03 and its negative-control matrix, UC-04, UC-06, UC-08, the INV-04
# restore on both backends, the unauthorised caller and the game days (all five classes). The chaos runs are named when wanted
# (ChaosRunIT writes chaos-ci.md and chaos-etcd-ci.md, ChaosRunLongIT chaos.md and chaos-etcd.md:
# each runs once per lock backend); NFR-07's table (docs/evidence/nfr-07.md) is kept by hand.
# The long tier is on (UC-08 takes its lock backend down for the long outage, the etcd restore
# runs) unless --ci-tier is given. The modules the experiments need are built by the same command,
# their own tests skipped, so nothing has to be installed first. Run it on a quiet machine.
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. tools/use-jdk.sh && use_build_jdk
long=true
classes=
for arg in "$@"; do
  shift
  case "$arg" in
    --ci-tier) long=false ;;
    -*) set -- "$@" "$arg" ;;
    # The game days were one class, GameDaysIT; the name still means all of them.
    GameDaysIT) classes="${classes:+$classes,}GameDays*IT" ;;
    *) classes="${classes:+$classes,}$arg" ;;
  esac
done
if [ -z "$classes" ]; then
  classes='Uc03PausedHolderIT,Uc04CrashRecoveryIT,Uc06ForceRevokeIT,Uc08LockBackendOutageIT,Inv04RestoreIT,Inv04EtcdRestoreLongIT,UnauthorisedCallerIT,GameDays*IT'
fi
# reconciliation-job is named too: the experiments start its exec jar, which -am alone does not build.
exec ./mvnw -B -pl experiments,reconciliation-job -am verify \
  -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
  -Dexperiments.long="$long" \
  -Dit.test="$classes" \
  -Dexperiments.evidence.dir="$root/docs/evidence" "$@"
