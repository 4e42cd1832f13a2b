# Sourced (POSIX sh) by ./fencepost, .ci/run and the benchmark and evidence scripts: puts the JDK
# the build and the images use first, as JAVA_HOME and on PATH (ADR 0230). The build runs on JDK
# 25 and makes the images' runtime from it; the code it compiles is Java 17 bytecode.
#
# The first JDK of that feature version among: JAVA_HOME, the `java` on PATH, then
# /usr/lib/jvm/* (where Debian's packages and Temurin's put them). None found: a message naming
# what was looked at, and `use_build_jdk` returns 1.
FENCEPOST_JDK_FEATURE=25

# The feature version (17, 25, ...) of the JDK at $1, or nothing when $1 is not a JDK.
jdk_feature() {
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] && [ -x "$1/bin/jlink" ] || return 0
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null
}

use_build_jdk() {
  _fp_path_java=$(command -v java 2>/dev/null || true)
  [ -n "$_fp_path_java" ] && _fp_path_java=$(dirname "$(dirname "$(readlink -f "$_fp_path_java")")")
  for _fp_home in "${JAVA_HOME:-}" "$_fp_path_java" /usr/lib/jvm/*; do
    [ -n "$_fp_home" ] || continue
    if [ "$(jdk_feature "$_fp_home")" = "$FENCEPOST_JDK_FEATURE" ]; then
      JAVA_HOME="$_fp_home"
      PATH="$_fp_home/bin:$PATH"
      export JAVA_HOME PATH
      return 0
    fi
  done
  echo "No JDK $FENCEPOST_JDK_FEATURE found (looked at JAVA_HOME=${JAVA_HOME:-unset}," \
    "the java on PATH and /usr/lib/jvm/*). Install one, or set JAVA_HOME to it." >&2
  return 1
}
