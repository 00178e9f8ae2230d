#!/bin/sh
# Fails when a plugin exports a symbol outside the ABI of mfprio.h.
so="$1"
allowed="plugin_name plugin_type plugin_version init fini job_resolve set_priority set_priority_batch decay job_end job_end_batch job_factors job_factors_json share_table share_table_free share_table_json plugin_stats plugin_info_json errmsg free_string"
bad=0
count=0
for sym in $(nm -D --defined-only "$so" | awk '{print $3}'); do
  count=$((count + 1))
  case " $allowed " in
    *" $sym "*) ;;
    *) echo "$so exports $sym, which is not in the ABI"; bad=1 ;;
  esac
done
[ "$count" -eq 20 ] || { echo "$so exports $count symbols, expected 20"; bad=1; }
exit $bad
