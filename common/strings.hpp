// strings.hpp - small string helpers shared by the tools: one rule each.
//
// Trimming has two rules, named for what they remove:
//   trim_space  every ASCII white-space byte (space, \t, \n, \v, \f, \r), as
//               C's isspace in the "C" locale: conf values, CSV cells, job
//               JSON strings, sacctmgr flat files;
//   trim_blank  spaces, tabs and a carriage return only: Grid Engine's qconf
//               text, whose lines are split at \n before and where a \f or \v
//               is a byte of the value.
// Case folding is ASCII only (locale-independent): bytes >= 0x80 are kept.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mfprio {

constexpr bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
constexpr bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

inline std::string trim_space(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_ascii_space(s[b])) ++b;
  while (e > b && is_ascii_space(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

inline std::string trim_blank(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_blank(s[b])) ++b;
  while (e > b && is_blank(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

constexpr char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
constexpr char upper_ascii(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

inline std::string lower(std::string s) {
  for (char& c : s) c = lower_ascii(c);
  return s;
}

inline std::string upper(std::string s) {
  for (char& c : s) c = upper_ascii(c);
  return s;
}

// ASCII case-insensitive equality, as conf keys and values compare.
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower_ascii(a[i]) != lower_ascii(b[i])) return false;
  return true;
}

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
