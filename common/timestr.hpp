// timestr.hpp - Slurm's time strings, as slurm.conf uses them for
// PriorityDecayHalfLife, PriorityMaxAge, PriorityCalcPeriod and time limits.
//
// Forms (slurm.conf(5)): "min", "min:sec", "h:m:s", "d-h", "d-h:m",
// "d-h:m:s"; "-1", "INFINITE", "UNLIMITED" (any case) mean no limit.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace mfprio {

inline constexpr int64_t kTimeInfinite = std::numeric_limits<int64_t>::max();

// Parses `text` into seconds (kTimeInfinite for the infinite forms).
// Returns false, with a reason in *why, when the text is not a time string.
bool parse_time_string(const std::string& text, int64_t* seconds, std::string* why);

}  // namespace mfprio
