// numbers.hpp - the number rules of the texts mfprio reads, one function per
// rule.  Every parser takes the whole text (no blank before or after: callers
// trim first), returns false on anything else and leaves *out alone then.
//
//   text                              counts      integers     reals
//   slurm.conf values, PriorityParameters items,
//   mfprio-acct/mfprio-host arguments parse_u64   parse_i64    parse_real
//   maui.cfg / moab.cfg                   -       parse_i64    parse_real
//   qconf text (sched_conf, -sstree, -suser, -sconf)  parse_i64 parse_real
//   CSV (flux-accounting export-db)       -       parse_i64    parse_decimal
//   JSON                              (jansson's number tokens, typed)
//
// parse_u64 (strings.hpp): decimal digits only, no sign, at most `max`.
// parse_i64: an optional sign and decimal digits, within [min, max] (no hex,
//   no exponent, no blank).
// parse_real: what C's strtod reads, as Slurm, Maui and Grid Engine read
//   their values: decimal or hexadecimal (0x1p4), with an exponent; finite
//   only (inf, nan, an overflow and an underflow, 1e999 and 1e-400, are
//   refused: the value written is not the value read).
// parse_decimal: decimal notation only, [sign] digits [.digits] [e[sign]digits]
//   or [sign] .digits[...], what Python writes for a float (flux-accounting's
//   CSVs): no hex, no inf/nan, no underscores; finite.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include "strings.hpp"  // parse_u64

namespace mfprio {

bool parse_i64(std::string_view s, int64_t* out, int64_t min = std::numeric_limits<int64_t>::min(),
               int64_t max = std::numeric_limits<int64_t>::max());
bool parse_real(std::string_view s, double* out);
bool parse_decimal(std::string_view s, double* out);

}  // namespace mfprio
