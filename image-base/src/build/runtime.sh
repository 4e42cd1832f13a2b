#!/usr/bin/env bash
# Makes the root file system every Fencepost image runs on (docs/images.md, ADR 0172): a jlink
# runtime of the building JDK (25, ADR 0230) at /opt/java, exactly the shared libraries that runtime loads
# (found with ldd, copied from the build machine), the non-root user 65532 and an empty /tmp.
# No shell, no package manager, no other binary. Run by this module's build, once per build.
#   runtime.sh <JDK home> <output directory>
set -euo pipefail

jdk="$1"
out="$2"
stamp="$out.stamp"

# The modules every application needs (ADR 0172 says why each is there). A module an
# application needs but this list lacks shows up as a class or service missing at start, which
# the deploy module's image run test catches.
modules=java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,\
java.naming,java.net.http,java.prefs,java.rmi,java.scripting,java.security.jgss,\
java.security.sasl,java.sql,java.transaction.xa,java.xml,java.xml.crypto,jdk.charsets,\
jdk.crypto.ec,jdk.crypto.cryptoki,jdk.management,jdk.naming.dns,jdk.net,jdk.unsupported,jdk.zipfs
modules="${FENCEPOST_IMAGE_MODULES:-$modules}"

# An up-to-date runtime is not made again (a second `verify` in the same tree).
want="$("$jdk/bin/java" -version 2>&1 | tr '\n' ' ')|$modules|$(sha256sum "$0" | cut -c1-64)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "image runtime up to date: $out"
  exit 0
fi

rm -rf "$out" "$stamp"
mkdir -p "$out/opt" "$out/etc" "$out/tmp" "$out/home/nonroot"

# java.desktop is there for java.beans (Spring's property binding); its AWT, sound, splash-screen
# and font natives are not, so the image needs no X11, ALSA or FreeType. No --compress: the
# image layer is compressed once, by the image build.
"$jdk/bin/jlink" \
  --add-modules "$modules" \
  --strip-debug --no-man-pages --no-header-files \
  --exclude-files='**/libawt_xawt.so,**/libjawt.so,**/libsplashscreen.so,**/libjsound.so,**/libfontmanager.so,**/liblcms.so,**/libjavajpeg.so,**/libmlib_image.so' \
  --output "$out/opt/java"

# Every shared library the runtime's binaries and libraries load, at the path the dynamic
# loader looks for it (the symlinks resolved: the image holds the file under its soname).
libs=$(find "$out/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' -o -name jspawnhelper \) \
  -exec ldd {} \; 2>/dev/null \
  | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' \
  | grep -v "^$out" | sort -u)
missing=$(find "$out/opt/java" -type f -name '*.so' -exec ldd {} \; 2>/dev/null \
  | awk '$3 == "not" && $1 != "libjvm.so" {print $1}' | sort -u)
if [[ -n "$missing" ]]; then
  echo "the runtime needs libraries this machine lacks: $missing" >&2
  exit 1
fi
for lib in $libs; do
  mkdir -p "$out$(dirname "$lib")"
  cp -L "$lib" "$out$lib"
done
# Debian's loader path is /lib64/ld-linux-x86-64.so.2 and its libraries are under
# /lib/x86_64-linux-gnu (a /usr merge symlink on the build machine, a real directory here).

cat > "$out/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
PASSWD
cat > "$out/etc/group" <<'GROUP'
root:x:0:
nonroot:x:65532:
GROUP
# Name lookups: files (the pod's /etc/hosts) then DNS (its /etc/resolv.conf); glibc 2.34 and
# later has both built in, so no libnss_* is needed.
echo 'hosts: files dns' > "$out/etc/nsswitch.conf"

echo "$want" > "$stamp"
echo "image runtime: $out ($(du -sh "$out" | cut -f1))"
