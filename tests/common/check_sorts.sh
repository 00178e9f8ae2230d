#!/bin/sh
# check_sorts.sh SRCROOT - the tree sorts stably with common/stable_order.hpp,
# never std::stable_sort / std::stable_partition / std::inplace_merge, whose
# GCC 12 scratch buffer ASan reports as an alloc/dealloc mismatch (the
# sanitizer suite keeps that check on).  Fails naming each use.
root=${1:?usage: check_sorts.sh SRCROOT}
found=$(grep -rnE 'std::(stable_sort|stable_partition|inplace_merge)[[:space:]]*\(' \
  "$root/common" "$root/plugin" "$root/accounting" "$root/host-shim" "$root/bench" "$root/tests" \
  --include='*.cpp' --include='*.hpp' --include='*.h' 2>/dev/null | grep -v 'check_sorts.sh')
if [ -n "$found" ]; then
  echo "use mfprio::stable_order / stable_split (common/stable_order.hpp) instead of:" >&2
  echo "$found" >&2
  exit 1
fi
echo "no std::stable_sort, stable_partition or inplace_merge in the tree"
