#!/bin/sh
# Installs the build into a scratch DESTDIR, then compiles the plain-C host
# against the *installed* header (found through the installed mfprio.pc) and
# loads the *installed* plugins with it.
set -eu
build="$1"; src="$2"; cc="${CC:-cc}"
dest=$(mktemp -d /tmp/mfprio-install.XXXXXX)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null
pc=$(find "$dest" -name mfprio.pc | head -n 1)
[ -n "$pc" ] || { echo "no mfprio.pc installed"; exit 1; }
inc=$(find "$dest" -path '*/include/mfprio/mfprio.h' | head -n 1)
[ -n "$inc" ] || { echo "mfprio.h not installed under include/mfprio/"; exit 1; }
plugdir=$(dirname "$(find "$dest" -path '*/mfprio/priority_basic.so' | head -n 1)")
[ -f "$plugdir/priority_multifactor.so" ] || { echo "plugins not installed in <libdir>/mfprio"; exit 1; }
for b in mfprio-host mfprio-acct; do
  find "$dest" -path "*/bin/$b" | grep -q . || { echo "$b not installed in bindir"; exit 1; }
done
grep -q '^plugindir=' "$pc" || { echo "mfprio.pc has no plugindir variable"; exit 1; }
# The pkg-config file advertises the ABI version the installed header defines.
hdr_abi=$(sed -n 's/^#define MFPRIO_ABI_VERSION[ \t]*\([0-9]*\)u.*/\1/p' "$inc")
pc_abi=$(sed -n 's/^abi_version=//p' "$pc")
[ -n "$hdr_abi" ] && [ "$pc_abi" = "$hdr_abi" ] ||
  { echo "mfprio.pc says abi_version=$pc_abi, the installed mfprio.h MFPRIO_ABI_VERSION $hdr_abi"; exit 1; }
"$cc" -std=c99 -pedantic -Wall -Wextra -Werror -I"$(dirname "$(dirname "$inc")")" \
  "$src/tests/abi/abi_host.c" -o "$dest/abi_host" -ldl
# A sanitizer build's plugins need the sanitizer runtime loaded first; the
# installed host is a plain build, so preload what the plugin links.
preload=$(ldd "$plugdir/priority_basic.so" | awk '/lib(asan|ubsan|tsan)\.so/ {print $3}' | tr '\n' ' ')
if [ -n "$preload" ]; then
  LD_PRELOAD="$preload" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$dest/abi_host" --fifo "$plugdir/priority_basic.so"
else
  "$dest/abi_host" --fifo "$plugdir/priority_basic.so"
fi
# The installed export check: each installed plugin exports exactly its v2 symbols.
for so in "$plugdir"/priority_*.so; do
  sh "$src/tests/abi/check_exports.sh" "$so" "$inc"
done
