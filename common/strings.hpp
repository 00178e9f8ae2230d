// strings.hpp - small string helpers shared by the tools.
#pragma once

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

}  // namespace mfprio
