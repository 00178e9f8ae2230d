// numbers.cpp - see numbers.hpp.
#include "numbers.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace mfprio {

namespace {
bool digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

bool parse_i64(std::string_view s, int64_t* out, int64_t min, int64_t max) {
  const size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t k = i; k < s.size(); ++k)
    if (!digit(s[k])) return false;
  const std::string t(s);
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(t.c_str(), &end, 10);
  if (errno == ERANGE || end != t.c_str() + t.size() || v < min || v > max) return false;
  *out = v;
  return true;
}

bool parse_real(std::string_view s, double* out) {
  if (s.empty() || is_ascii_space(s[0])) return false;
  const std::string t(s);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  // ERANGE: an overflow, or an underflow to 0 or a subnormal (1e-400).
  if (errno == ERANGE || end != t.c_str() + t.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

bool parse_decimal(std::string_view s, double* out) {
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  size_t digits = 0;
  while (i < s.size() && digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp = 0;
    while (i < s.size() && digit(s[i])) ++i, ++exp;
    if (exp == 0) return false;
  }
  return i == s.size() && parse_real(s, out);
}

}  // namespace mfprio
