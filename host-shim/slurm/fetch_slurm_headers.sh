#!/bin/sh
# fetch_slurm_headers.sh OUTDIR - Slurm's internal headers for the adapter,
# from Debian's source package of exactly the installed slurmctld version
# (plugin_version must equal it down to the micro release).  Nothing of
# Slurm is kept in the repository: the source goes to OUTDIR (the build
# tree), with the two generated headers the adapter's includes need made
# from it: an empty config.h and slurm/slurm_version.h (from its .in, the
# version number from META).  Prints one line: the source root.  Re-runs are
# quick when OUTDIR already holds the installed version.
# Needs dpkg-dev (apt-get source) and a deb-src entry for the installed
# release (./dev slurm-plugin adds both).
set -eu
out=$1
ver=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null) || {
  echo "fetch_slurm_headers: slurmctld is not installed (dpkg-query found no version)" >&2; exit 1; }
upstream=${ver#*:}
upstream=${upstream%%-*}
src=$out/slurm-wlm-$upstream
stamp=$out/version
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$ver" ] || [ ! -f "$src/META" ]; then
  rm -rf "$out"
  mkdir -p "$out"
  if ! (cd "$out" && apt-get source -qq "slurm-wlm=$ver" >"$out/apt-source.log" 2>&1); then
    echo "fetch_slurm_headers: apt-get source slurm-wlm=$ver failed (deb-src entry and dpkg-dev needed; ./dev slurm-plugin adds them): $(tail -n 3 "$out/apt-source.log" | tr '\n' ' ')" >&2
    exit 1
  fi
  [ -f "$src/META" ] || { echo "fetch_slurm_headers: no $src/META after apt-get source" >&2; exit 1; }
  meta() { sed -n "s/^ *$1:[[:space:]]*//p" "$src/META" | head -n 1; }
  major=$(meta Major); minor=$(meta Minor); micro=$(meta Micro)
  [ "$major.$minor.$micro" = "$upstream" ] || {
    echo "fetch_slurm_headers: META says $major.$minor.$micro, the package $upstream" >&2; exit 1; }
  mkdir -p "$out/gen/slurm"
  : > "$out/gen/config.h"
  num=$(printf '0x%02x%02x%02x' "$(expr "$major" + 0)" "$(expr "$minor" + 0)" "$(expr "$micro" + 0)")
  sed "s/^#undef SLURM_VERSION_NUMBER\$/#define SLURM_VERSION_NUMBER $num/" \
    "$src/slurm/slurm_version.h.in" > "$out/gen/slurm/slurm_version.h"
  grep -q "^#define SLURM_VERSION_NUMBER $num" "$out/gen/slurm/slurm_version.h" || {
    echo "fetch_slurm_headers: could not write SLURM_VERSION_NUMBER into slurm_version.h" >&2; exit 1; }
  echo "$ver" > "$stamp"
fi
echo "$src"
