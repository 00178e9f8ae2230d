#!/bin/sh
# check_exports.sh PLUGIN.so [mfprio.h]
# A plugin exports exactly the ABI v2 symbols it defines: the identity
# (plugin_name, plugin_type, plugin_version), the MFPRIO_OPS_REQUIRED first
# names of MFPRIO_OPS_SYMBOLS, any of the other (optional) names, and nothing
# else.  The names are read from the header, so this script never lists them.
# Also: a plugin with a *_json operation exports free_string, and
# share_table comes with share_table_free.
set -eu
so="$1"
header="${2:-$(dirname "$0")/../../plugin/include/mfprio/mfprio.h}"
[ -f "$so" ] || { echo "$so: no such file"; exit 1; }
[ -f "$header" ] || { echo "$header: no such file"; exit 1; }

# The quoted names of the MFPRIO_OPS_SYMBOLS macro (a backslash-continued define).
ops=$(awk '/^#define MFPRIO_OPS_SYMBOLS/ {on = 1}
           on {print; if ($0 !~ /\\[ \t]*$/) exit}' "$header" | grep -o '"[A-Za-z_0-9]*"' | tr -d '"')
required_count=$(sed -n 's/^#define MFPRIO_OPS_REQUIRED[ \t]*\([0-9]*\).*/\1/p' "$header")
[ -n "$ops" ] && [ -n "$required_count" ] || { echo "$header: MFPRIO_OPS_SYMBOLS or MFPRIO_OPS_REQUIRED not found"; exit 1; }
required=$(echo "$ops" | head -n "$required_count")
identity="plugin_name plugin_type plugin_version"

exported=$(nm -D --defined-only "$so" | awk 'NF >= 3 {print $3}' | sed 's/@.*//' | sort -u)
has() { echo "$exported" | grep -qx "$1"; }

bad=0
for sym in $exported; do
  case " $identity $(echo $ops) " in
    *" $sym "*) ;;
    *) echo "$so exports $sym, which is not in the ABI of $(basename "$header")"; bad=1 ;;
  esac
done
for sym in $identity $required; do
  has "$sym" || { echo "$so does not export $sym, which the ABI requires"; bad=1; }
done
if ! has free_string; then
  for sym in job_factors_json share_table_json plugin_info_json; do
    has "$sym" && { echo "$so exports $sym but not free_string"; bad=1; }
  done
fi
if has share_table && ! has share_table_free; then echo "$so exports share_table but not share_table_free"; bad=1; fi
if has share_table_free && ! has share_table; then echo "$so exports share_table_free but not share_table"; bad=1; fi

optional=""
for sym in $(echo "$ops" | tail -n +"$((required_count + 1))"); do
  has "$sym" && optional="$optional $sym"
done
[ "$bad" -eq 0 ] && echo "$so: identity + $required_count required + $(echo $optional | wc -w) optional:${optional:- none}"
exit $bad
