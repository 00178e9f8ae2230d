// strings.hpp - small string helpers shared by the tools.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mfprio {

// "a,,b," split at `sep` into its non-empty parts: {"a", "b"}.
inline std::vector<std::string> split_nonempty(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t c = s.find(sep, pos);
    if (c == std::string::npos) c = s.size();
    if (c > pos) out.push_back(s.substr(pos, c - pos));
    pos = c + 1;
  }
  return out;
}

// Decimal digits only (no sign, no blanks), at most `max`: false otherwise.
inline bool parse_u64(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (max - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

}  // namespace mfprio
