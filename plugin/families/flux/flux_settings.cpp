// flux_settings.cpp - see flux_settings.hpp.
//
// Parsing happens in two passes: first every item is split and checked for
// syntax and duplicates (so `mode` may come anywhere in the list), then each
// key is checked against the selected mode and its value parsed into a local
// Settings.  Only a fully valid string reaches *out.
#include "flux_settings.hpp"

#include "numbers.hpp"
#include "strings.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

namespace mfprio::flux {
namespace {

void set_why(std::string* why, std::string text) {
  if (why) *why = std::move(text);
}

// Non-negative decimal integer without sign; false on overflow or junk.
bool parse_uint(const std::string& s, int64_t* v) {
  if (s.empty()) return false;
  int64_t r = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    if (r > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) return false;
    r = r * 10 + (c - '0');
  }
  *v = r;
  return true;
}

bool parse_int(const std::string& s, int64_t* v) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    int64_t r;
    if (!parse_uint(s.substr(1), &r)) return false;
    *v = s[0] == '-' ? -r : r;
    return true;
  }
  return parse_uint(s, v);
}

bool parse_double(const std::string& s, double* v) { return parse_real(s, v); }  // numbers.hpp

// The keys and which mode uses them.
enum class Use { kBoth, kAccounting, kDesign };
struct KeyInfo {
  const char* name;
  Use use;
};
constexpr KeyInfo kKeys[] = {
    {"mode", Use::kBoth},
    {"fairshare", Use::kBoth},
    {"queue", Use::kBoth},
    {"bank", Use::kAccounting},
    {"urgency", Use::kAccounting},
    {"wait_time", Use::kDesign},
    {"max_wait", Use::kDesign},
    {"qos", Use::kDesign},
    {"job_size", Use::kDesign},
    {"job_size_favor", Use::kDesign},
    {"user", Use::kDesign},
    {"decay_half_life", Use::kBoth},
    {"reset_period", Use::kBoth},
    {"decay_factor", Use::kBoth},
    {"node_weight", Use::kBoth},
    {"core_weight", Use::kBoth},
    {"gpu_weight", Use::kBoth},
};

const KeyInfo* find_key(const std::string& k) {
  for (const KeyInfo& ki : kKeys)
    if (k == ki.name) return &ki;
  return nullptr;
}

std::string bad(const std::string& key, const std::string& value, const char* what) {
  return "PriorityParameters: bad value '" + value + "' for key '" + key + "': " + what;
}

// A finite, positive time string for the duration keys.
bool parse_duration(const std::string& key, const std::string& value, int64_t* out,
                    std::string* why) {
  int64_t s = 0;
  std::string reason;
  if (!parse_slurm_time(value, &s, &reason)) {
    set_why(why, bad(key, value, reason.c_str()));
    return false;
  }
  if (s == kTimeInfinite) {
    set_why(why, bad(key, value, "must be finite"));
    return false;
  }
  if (s <= 0) {
    set_why(why, bad(key, value, "must be longer than 0 seconds"));
    return false;
  }
  *out = s;
  return true;
}

}  // namespace

int UsageSettings::bins() const {
  const int64_t n = half_life > 0 ? reset_period / half_life : 0;
  if (n <= 0) return 4;  // flux-accounting: N <= 0 -> 4
  if (n > 100000) return 100000;  // parse_flux_parameters refuses more; belt and braces
  return static_cast<int>(n);
}

const char* mode_name(Mode m) { return m == Mode::kDesign ? "design" : "accounting"; }
const char* size_favor_name(SizeFavor f) { return f == SizeFavor::kSmall ? "small" : "large"; }

bool parse_slurm_time(const std::string& text, int64_t* seconds, std::string* why) {
  const std::string t = trim_space(text);
  const std::string lt = lower(t);
  if (lt == "-1" || lt == "infinite" || lt == "unlimited") {
    *seconds = kTimeInfinite;
    return true;
  }
  if (t.empty()) {
    set_why(why, "empty time string");
    return false;
  }
  // [days-]rest; rest is split on ':'.
  int64_t days = 0;
  bool have_days = false;
  std::string rest = t;
  const size_t dash = t.find('-');
  if (dash != std::string::npos) {
    if (!parse_uint(t.substr(0, dash), &days)) {
      set_why(why, "not a time string (days before '-' must be a number)");
      return false;
    }
    have_days = true;
    rest = t.substr(dash + 1);
  }
  std::vector<int64_t> f;
  size_t start = 0;
  for (;;) {
    const size_t colon = rest.find(':', start);
    const std::string part =
        rest.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    int64_t v;
    if (!parse_uint(part, &v) || v > 1'000'000'000LL) {
      set_why(why, "not a time string (expected min, min:sec, h:m:s, d-h, d-h:m or d-h:m:s)");
      return false;
    }
    f.push_back(v);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (f.size() > 3 || days > 1'000'000) {
    set_why(why, "not a time string (expected min, min:sec, h:m:s, d-h, d-h:m or d-h:m:s)");
    return false;
  }
  int64_t s = 0;
  if (have_days) {
    // d-h, d-h:m, d-h:m:s
    s = f[0] * 3600 + (f.size() > 1 ? f[1] * 60 : 0) + (f.size() > 2 ? f[2] : 0);
  } else if (f.size() == 1) {
    s = f[0] * 60;  // a lone number is minutes
  } else if (f.size() == 2) {
    s = f[0] * 60 + f[1];  // min:sec
  } else {
    s = f[0] * 3600 + f[1] * 60 + f[2];  // h:m:s
  }
  *seconds = days * 86400 + s;
  return true;
}

bool parse_flux_parameters(const std::string& value, Settings* out, std::string* why) {
  // Pass 1: split into (key, value) pairs; syntax, unknown keys, duplicates.
  std::vector<std::pair<std::string, std::string>> items;
  const std::string all = trim_space(value);
  if (!all.empty()) {
    size_t start = 0;
    for (;;) {
      const size_t comma = all.find(',', start);
      const std::string item =
          trim_space(all.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (item.empty()) {
        set_why(why, "PriorityParameters: empty item in '" + value + "'");
        return false;
      }
      const size_t eq = item.find('=');
      if (eq == std::string::npos) {
        set_why(why, "PriorityParameters: item '" + item + "' is not NAME=VALUE");
        return false;
      }
      const std::string k = lower(trim_space(item.substr(0, eq)));
      const std::string v = trim_space(item.substr(eq + 1));
      if (!find_key(k)) {
        set_why(why, "PriorityParameters: unknown key '" + trim_space(item.substr(0, eq)) +
                         "' (value '" + v + "')");
        return false;
      }
      for (const auto& [pk, pv] : items)
        if (pk == k) {
          set_why(why, "PriorityParameters: key '" + k + "' given twice ('" + pv + "' and '" + v +
                           "')");
          return false;
        }
      items.emplace_back(k, v);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }

  Settings s;  // defaults; filled locally, copied out only when all is valid
  for (const auto& [k, v] : items)
    if (k == "mode") {
      const std::string m = lower(v);
      if (m == "accounting") {
        s.mode = Mode::kAccounting;
      } else if (m == "design") {
        s.mode = Mode::kDesign;
      } else {
        set_why(why, bad(k, v, "expected 'accounting' or 'design'"));
        return false;
      }
    }

  // Pass 2: each key against the mode, then its value.
  for (const auto& [k, v] : items) {
    const KeyInfo* ki = find_key(k);
    if ((ki->use == Use::kAccounting && s.mode != Mode::kAccounting) ||
        (ki->use == Use::kDesign && s.mode != Mode::kDesign)) {
      set_why(why, "PriorityParameters: key '" + k + "' (value '" + v + "') is used only with mode=" +
                       (ki->use == Use::kDesign ? "design" : "accounting"));
      return false;
    }
    if (k == "mode") continue;

    // Weights.
    int64_t* w = nullptr;
    bool int32_weight = false;
    if (k == "fairshare") w = &s.weights.fairshare, int32_weight = true;
    else if (k == "queue") w = &s.weights.queue, int32_weight = true;
    else if (k == "bank") w = &s.weights.bank, int32_weight = true;
    else if (k == "urgency") w = &s.weights.urgency, int32_weight = true;
    else if (k == "wait_time") w = &s.weights.wait_time;
    else if (k == "qos") w = &s.weights.qos;
    else if (k == "job_size") w = &s.weights.job_size;
    else if (k == "user") w = &s.weights.user;
    if (w) {
      int64_t x;
      if (!parse_int(v, &x)) {
        set_why(why, bad(k, v, "not an integer weight"));
        return false;
      }
      if (int32_weight && (x < std::numeric_limits<int32_t>::min() ||
                           x > std::numeric_limits<int32_t>::max())) {
        set_why(why, bad(k, v, "weight out of range (a 32-bit int, as flux-accounting keeps it)"));
        return false;
      }
      if (!int32_weight && x > 4294967295LL) {
        set_why(why, bad(k, v, "weight out of range (0..4294967295)"));
        return false;
      }
      if (s.mode == Mode::kDesign && x < 0) {
        set_why(why, bad(k, v, "design-mode weights must be >= 0"));
        return false;
      }
      *w = x;
      continue;
    }

    if (k == "max_wait") {
      if (!parse_duration(k, v, &s.max_wait, why)) return false;
    } else if (k == "decay_half_life") {
      if (!parse_duration(k, v, &s.usage.half_life, why)) return false;
    } else if (k == "reset_period") {
      if (!parse_duration(k, v, &s.usage.reset_period, why)) return false;
    } else if (k == "job_size_favor") {
      const std::string f = lower(v);
      if (f == "large") {
        s.job_size_favor = SizeFavor::kLarge;
      } else if (f == "small") {
        s.job_size_favor = SizeFavor::kSmall;
      } else {
        set_why(why, bad(k, v, "expected 'large' or 'small'"));
        return false;
      }
    } else if (k == "decay_factor") {
      double d;
      if (!parse_double(v, &d) || !(d > 0.0 && d < 1.0)) {
        set_why(why, bad(k, v, "must be a number strictly between 0 and 1"));
        return false;
      }
      s.usage.decay_factor = d;
    } else {  // node_weight, core_weight, gpu_weight
      double d;
      if (!parse_double(v, &d) || d < 0.0) {
        set_why(why, bad(k, v, "must be a number >= 0"));
        return false;
      }
      (k == "node_weight" ? s.usage.node_weight
       : k == "core_weight" ? s.usage.core_weight
                            : s.usage.gpu_weight) = d;
    }
  }

  // Cross-key checks.
  if (s.usage.reset_period / s.usage.half_life > 100000) {
    set_why(why, "PriorityParameters: reset_period / decay_half_life gives more than 100000 bins");
    return false;
  }
  *out = s;
  return true;
}

}  // namespace mfprio::flux
