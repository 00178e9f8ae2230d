// timestr.cpp - see timestr.hpp.  The field meanings follow slurm.conf(5):
// a lone number is minutes; with one colon it is minutes:seconds; with two,
// hours:minutes:seconds; a day count comes before a dash.
#include "timestr.hpp"

#include <cctype>
#include <vector>

#include "strings.hpp"

namespace mfprio {
namespace {

// Splits on ':' into non-negative integers; false on anything else.
bool split_fields(const std::string& s, std::vector<int64_t>* out) {
  out->clear();
  int64_t cur = 0;
  bool have_digit = false;
  for (char c : s) {
    if (c == ':') {
      if (!have_digit) return false;
      out->push_back(cur);
      cur = 0;
      have_digit = false;
    } else if (c >= '0' && c <= '9') {
      if (cur > 1'000'000'000'000LL) return false;  // absurd, and overflow-safe
      cur = cur * 10 + (c - '0');
      have_digit = true;
    } else {
      return false;
    }
  }
  if (!have_digit) return false;
  out->push_back(cur);
  return true;
}

}  // namespace

bool parse_time_string(const std::string& text, int64_t* seconds, std::string* why) {
  std::string t;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) t += c;
  if (t == "-1" || iequals(t, "INFINITE") || iequals(t, "UNLIMITED")) {
    *seconds = kTimeInfinite;
    return true;
  }
  if (t.empty()) {
    if (why) *why = "empty time string";
    return false;
  }
  int64_t days = 0;
  std::string rest = t;
  const size_t dash = t.find('-');
  const bool has_days = dash != std::string::npos;
  if (has_days) {
    std::vector<int64_t> d;
    if (dash == 0 || !split_fields(t.substr(0, dash), &d) || d.size() != 1) {
      if (why) *why = "bad day count in '" + text + "' (expected days-hours[:min[:sec]])";
      return false;
    }
    days = d[0];
    rest = t.substr(dash + 1);
  }
  std::vector<int64_t> f;
  if (!split_fields(rest, &f) || f.size() > 3) {
    if (why)
      *why = "'" + text + "' is not a time string (min, min:sec, h:m:s, d-h, d-h:m, d-h:m:s, INFINITE)";
    return false;
  }
  int64_t h = 0, m = 0, s = 0;
  if (has_days) {  // d-h, d-h:m, d-h:m:s
    h = f[0];
    if (f.size() > 1) m = f[1];
    if (f.size() > 2) s = f[2];
  } else if (f.size() == 1) {  // min
    m = f[0];
  } else if (f.size() == 2) {  // min:sec
    m = f[0];
    s = f[1];
  } else {  // h:m:s
    h = f[0];
    m = f[1];
    s = f[2];
  }
  *seconds = ((days * 24 + h) * 60 + m) * 60 + s;
  return true;
}

}  // namespace mfprio
