#!/usr/bin/env bash
# Regenerates docs/requirements.md: compiles the traceability module (it depends on no other
# module, so this works on a fresh clone) and runs its generator over this repository. Extra
# arguments go to Maven, e.g. -Dmaven.repo.local=... . Exits non-zero, after writing the page, when
# the build's check would still fail (an ID cited but not catalogued, or one with no tagged test
# and no reviewed reason), and says why.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/use-jdk.sh && use_build_jdk
./mvnw -B -q -pl traceability compile "$@"
exec java -cp traceability/target/classes dev.fencepost.traceability.RequirementsPage .
