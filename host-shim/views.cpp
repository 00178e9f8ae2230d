// views.cpp - see views.hpp.
#include "views.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <cctype>
#include <stdexcept>
#include <strings.h>

#include "json_util.hpp"
#include "stable_order.hpp"
#include "strings.hpp"

namespace mfprio::host {
namespace {

struct Column {
  const char* header;
  int width;
  bool right;
};

// Lays out rows of cells: padded and space-separated, or parsable.
class Table {
 public:
  Table(std::vector<Column> cols, bool parsable, bool no_ending = false)
      : cols_(std::move(cols)), parsable_(parsable), no_ending_(no_ending) {}

  void header() {
    std::vector<std::string> h;
    for (const Column& c : cols_) h.emplace_back(c.header);
    line(h, /*is_header=*/true);
  }
  void dashes() {
    if (parsable_) return;
    std::string s;
    for (size_t i = 0; i < cols_.size(); ++i) {
      if (i) s += ' ';
      s.append(static_cast<size_t>(cols_[i].width), '-');
    }
    out_ += s + '\n';
  }
  void row(const std::vector<std::string>& cells) { line(cells, false); }
  const std::string& str() const { return out_; }

 private:
  void line(const std::vector<std::string>& cells, bool is_header) {
    std::string s;
    for (size_t i = 0; i < cols_.size(); ++i) {
      const std::string& v = i < cells.size() ? cells[i] : std::string();
      if (parsable_) {
        s += v;
        if (!(no_ending_ && i + 1 == cols_.size())) s += '|';
        continue;
      }
      if (i) s += ' ';
      const size_t w = static_cast<size_t>(cols_[i].width);
      const std::string pad = v.size() < w ? std::string(w - v.size(), ' ') : std::string();
      // Headers are right-aligned like Slurm's; a left column's data is left-aligned.
      if (cols_[i].right || is_header) s += pad + v;
      else s += v + (i + 1 == cols_.size() ? std::string() : pad);
    }
    if (!parsable_)
      while (!s.empty() && s.back() == ' ') s.pop_back();
    out_ += s + '\n';
  }

  std::vector<Column> cols_;
  bool parsable_;
  bool no_ending_;
  std::string out_;
};

std::string integer(double v) {
  if (!std::isfinite(v)) return fixed(v, 0);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", std::round(v));
  return std::string(buf) == "-0" ? "0" : buf;
}

// A fixed-size char array from the ABI, up to its first NUL.
template <size_t N>
std::string str_of(const char (&a)[N]) {
  return std::string(a, strnlen(a, N));
}

uint32_t term_count(const mfprio_factors_t& f) {
  return f.term_count < MFPRIO_MAX_TERMS ? f.term_count : MFPRIO_MAX_TERMS;
}

// The top-level term named `name` in f, or -1.
int find_term(const mfprio_factors_t& f, const std::string& name) {
  const uint32_t n = term_count(f);
  for (uint32_t i = 0; i < n; ++i)
    if (f.terms[i].parent < 0 && str_of(f.terms[i].name) == name) return static_cast<int>(i);
  return -1;
}

// A top-level term's contribution (0 when the row has no such term, or it is
// text or a list: not a number of the sum).
double term_contribution(const mfprio_factors_t& f, const TermColumn& col) {
  const int at = find_term(f, col.name);
  if (at < 0 || (f.terms[at].flags & (MFPRIO_TERMF_TEXT | MFPRIO_TERMF_LIST))) return 0.0;
  return f.terms[at].contribution;
}

std::string term_cell(const mfprio_factors_t& f, const TermColumn& col, bool norm) {
  const int at = find_term(f, col.name);
  if (at < 0) return std::string();
  const mfprio_term_t& t = f.terms[at];
  if (t.flags & MFPRIO_TERMF_TEXT) return str_of(t.text);
  if (t.flags & MFPRIO_TERMF_RAW) return integer(t.factor);
  if (t.flags & MFPRIO_TERMF_LIST) {
    std::string s;
    const uint32_t n = term_count(f);
    for (uint32_t i = 0; i < n; ++i) {
      const mfprio_term_t& c = f.terms[i];
      if (c.parent != at) continue;
      if (!s.empty()) s += ',';
      s += str_of(c.name) + "=" + (norm ? fixed(c.factor, 7) : integer(c.contribution));
    }
    return s;
  }
  if (t.flags & MFPRIO_TERMF_DECIMAL) return norm ? fixed(t.factor, 7) : fixed(t.contribution, 5);
  return norm ? fixed(t.factor, 7) : integer(t.contribution);
}

const json_t* iget(const json_t* obj, const char* key) {
  const char* k;
  json_t* v;
  json_object_foreach(const_cast<json_t*>(obj), k, v) {
    if (strcasecmp(k, key) == 0) return v;
  }
  return nullptr;
}

// A weight given as a number, or as a numeric string ("1000").
bool weight_value(const json_t* v, double* out) {
  if (json_is_number(v)) {
    *out = json_number_value(v);
    return true;
  }
  if (json_is_string(v)) {
    char* end = nullptr;
    const double d = std::strtod(json_string_value(v), &end);
    if (end && *end == '\0' && end != json_string_value(v)) {
      *out = d;
      return true;
    }
  }
  return false;
}

// The Weights row's cell for one weight value (see parse_weights).
std::string weight_cell(const json_t* v) {
  double d = 0;
  if (weight_value(v, &d)) {
    if (d == std::floor(d)) return integer(d);
    char buf[64];  // a fractional weight (Grid Engine's weight_urgency 0.1)
    std::snprintf(buf, sizeof buf, "%g", d);
    return buf;
  }
  if (json_is_string(v)) return json_string_value(v);
  std::string s;
  if (json_is_object(v)) {
    const char* k;
    json_t* x;
    json_object_foreach(const_cast<json_t*>(v), k, x) {
      if (!weight_value(x, &d)) continue;
      if (!s.empty()) s += ',';
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", d);
      s += std::string(k) + "=" + buf;
    }
  }
  return s;
}

}  // namespace

size_t printf_fixed(char* out, size_t cap, double v, int decimals) {
  static constexpr uint64_t kPow10[] = {1,         10,         100,         1000,         10000,
                                        100000,    1000000,    10000000,    100000000,    1000000000};
  const double a = std::fabs(v);
  if (!(a < 1e9) || decimals < 0 || decimals > 9 || cap < 32) {  // inf, nan, big: the C library
    const int n = std::snprintf(out, cap, "%.*f", decimals, v);
    return n < 0 ? 0 : std::min(static_cast<size_t>(n), cap ? cap - 1 : 0);
  }
  // a = m * 2^e exactly (m < 2^53); a < 2^30, so e < 0.  The digits are
  // a * 10^d rounded to an integer, ties to even, done on the exact value:
  // m * 10^d < 2^83 fits 128 bits, and the result < 10^18 fits 64.
  uint64_t bits = 0;
  std::memcpy(&bits, &a, sizeof bits);
  const int biased = static_cast<int>(bits >> 52);  // a >= 0: no sign bit
  const uint64_t frac = bits & ((uint64_t{1} << 52) - 1);
  const uint64_t m = biased ? frac | (uint64_t{1} << 52) : frac;  // subnormal: no hidden bit
  const int shift = biased ? 1075 - biased : 1074;  // a = m * 2^-shift; a < 2^30: shift >= 23
  const unsigned __int128 p = static_cast<unsigned __int128>(m) * kPow10[decimals];
  uint64_t q = 0;
  if (shift < 127) {  // else p < 2^83 <= half of 2^shift: rounds to 0
    const unsigned __int128 one = 1;
    q = static_cast<uint64_t>(p >> shift);
    const unsigned __int128 rem = p & ((one << shift) - 1), half = one << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
  }
  // sshare's "%f": a constant divisor the compiler turns into a multiply.
  const uint64_t ip = decimals == 6 ? q / 1000000 : q / kPow10[decimals];
  const uint64_t fp = decimals == 6 ? q % 1000000 : q % kPow10[decimals];
  char* o = out;
  if (std::signbit(v)) *o++ = '-';
  o = std::to_chars(o, out + cap, ip).ptr;  // ip < 10^9: fits (cap >= 32)
  if (decimals > 0) {
    *o++ = '.';
    uint64_t f = fp;
    int i = decimals;
    // Two digits at a time from the right, then an odd one.
    static constexpr char kPairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    for (; i >= 2; i -= 2) {
      const size_t k = static_cast<size_t>(f % 100) * 2;
      o[i - 2] = kPairs[k];
      o[i - 1] = kPairs[k + 1];
      f /= 100;
    }
    if (i == 1) o[0] = static_cast<char>('0' + f % 10);
    o += decimals;
  }
  *o = '\0';
  return static_cast<size_t>(o - out);
}

std::string fixed(double v, int decimals) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::vector<TermColumn> term_columns(const std::vector<SprioRow>& rows) {
  std::vector<TermColumn> cols;
  for (const SprioRow& r : rows) {
    const uint32_t n = term_count(r.f);
    for (uint32_t i = 0; i < n; ++i) {
      const mfprio_term_t& t = r.f.terms[i];
      if (t.parent >= 0) continue;
      const std::string name = str_of(t.name);
      bool seen = false;
      for (const TermColumn& c : cols) seen = seen || c.name == name;
      if (!seen) cols.push_back(TermColumn{name, str_of(t.label), t.flags, t.width});
    }
  }
  return cols;
}

std::vector<TermColumn> term_columns_from_info(const std::string& info_json) {
  std::vector<TermColumn> cols;
  JsonPtr root(json_loads(info_json.c_str(), 0, nullptr));
  if (!root || !json_is_object(root.get())) return cols;
  if (const json_t* terms = iget(root.get(), "terms"); terms && json_is_array(terms)) {
    size_t i;
    json_t* t;
    json_array_foreach(terms, i, t) {
      const json_t* name = json_object_get(t, "name");
      if (!json_is_string(name)) continue;
      const json_t* parent = json_object_get(t, "parent");
      if (parent && json_is_integer(parent) && json_integer_value(parent) >= 0) continue;
      TermColumn c;
      c.name = json_string_value(name);
      const json_t* label = json_object_get(t, "label");
      c.label = json_is_string(label) ? json_string_value(label) : c.name;
      if (const json_t* f = json_object_get(t, "flags"); json_is_integer(f))
        c.flags = static_cast<uint32_t>(json_integer_value(f));
      if (const json_t* w = json_object_get(t, "width"); json_is_integer(w) && json_integer_value(w) > 0)
        c.width = static_cast<uint32_t>(json_integer_value(w));
      cols.push_back(std::move(c));
    }
    return cols;
  }
  if (const json_t* w = iget(root.get(), "weights"); w && json_is_object(w)) {
    const char* k;
    json_t* v;
    json_object_foreach(const_cast<json_t*>(w), k, v) {
      TermColumn c;
      c.name = k;
      c.label = k;
      for (char& ch : c.label) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      cols.push_back(std::move(c));
    }
  }
  return cols;
}

std::string Weights::cell(const std::string& term) const {
  auto it = cells.find(lower(term));
  return it == cells.end() ? std::string() : it->second;
}

std::string format_sprio(const std::vector<SprioRow>& rows, const SprioOptions& opt, const Weights& w) {
  return format_sprio(rows, term_columns(rows), opt, w);
}

std::string format_sprio(const std::vector<SprioRow>& rows, const std::vector<TermColumn>& terms,
                         const SprioOptions& opt, const Weights& w) {
  std::vector<Column> layout = {{"JOBID", 15, true}, {"PARTITION", 9, false}};
  if (opt.long_format) {
    layout.push_back({"USER", 8, true});
    layout.push_back({"ACCOUNT", 8, true});
  }
  layout.push_back({"PRIORITY", 10, true});
  // A family whose admins read their own priority (MFPRIO_TERMF_PRIORITY):
  // that term is the PRIORITY column; the 32-bit ordering key shows as KEY
  // in the long format only.
  const TermColumn* own = nullptr;
  for (const TermColumn& t : terms)
    if (t.flags & MFPRIO_TERMF_PRIORITY) own = &t;
  if (own && opt.long_format) layout.push_back({"KEY", 10, true});
  const size_t fixed_cols = layout.size();
  std::vector<const TermColumn*> shown;
  for (const TermColumn& t : terms) {
    if (&t == own) continue;
    if ((t.flags & MFPRIO_TERMF_LONG) && !opt.long_format) continue;
    shown.push_back(&t);
    // Slurm's sprio: the TRES list is left-aligned (%20T) in the short format only.
    const bool right = !((t.flags & MFPRIO_TERMF_LIST) && !opt.long_format);
    layout.push_back({t.label.c_str(), t.width ? static_cast<int>(t.width) : 10, right});
  }
  Table t(layout, opt.parsable);
  if (opt.header) t.header();
  if (opt.weights) {
    std::vector<std::string> cells(fixed_cols);
    cells[0] = "Weights";
    for (const TermColumn* c : shown) cells.push_back(w.cell(c->name));
    t.row(cells);
  }
  for (const SprioRow& r : rows) {
    std::vector<std::string> cells = {std::to_string(r.job_id), r.partition};
    if (opt.long_format) {
      cells.push_back(r.user);
      cells.push_back(r.account);
    }
    const std::string key = opt.normalized ? fixed(r.f.priority / 4294967295.0, 7) : std::to_string(r.f.priority);
    cells.push_back(own ? term_cell(r.f, *own, opt.normalized) : key);
    if (own && opt.long_format) cells.push_back(key);
    // --percent: Maui's diagnose -p cells, the term's share of this job's
    // priority (100 x |c| / the sum of its terms' |c|) with its value.
    double job_sum = 0;
    if (opt.percent)
      for (const TermColumn* c : shown) job_sum += std::fabs(term_contribution(r.f, *c));
    for (const TermColumn* c : shown) {
      std::string cell = term_cell(r.f, *c, opt.normalized);
      if (opt.percent && !(c->flags & (MFPRIO_TERMF_TEXT | MFPRIO_TERMF_LIST)) && !cell.empty())
        cell = fixed(job_sum > 0 ? 100.0 * std::fabs(term_contribution(r.f, *c)) / job_sum : 0.0, 1) + "(" + cell + ")";
      cells.push_back(cell);
    }
    t.row(cells);
  }
  if (opt.percent) {
    // Maui's diagnose -p "Percent Contribution": each numeric term's share of
    // the listed jobs' priorities, summed over the jobs: 100 x sum|c| / sum of
    // every term's |c| (so the row adds up to 100 whatever the signs).
    std::vector<double> sum(shown.size(), 0.0);
    double all = 0;
    for (const SprioRow& r : rows)
      for (size_t k = 0; k < shown.size(); ++k) {
        if (shown[k]->flags & (MFPRIO_TERMF_TEXT | MFPRIO_TERMF_RAW)) continue;
        for (uint32_t i = 0; i < r.f.term_count && i < MFPRIO_MAX_TERMS; ++i) {
          const mfprio_term_t& term = r.f.terms[i];
          if (term.parent >= 0 || shown[k]->name != std::string(term.name, strnlen(term.name, sizeof term.name)))
            continue;
          sum[k] += std::fabs(term.contribution);
          all += std::fabs(term.contribution);
        }
      }
    std::vector<std::string> cells(fixed_cols);
    cells[0] = "Percent";
    for (size_t k = 0; k < shown.size(); ++k)
      cells.push_back((shown[k]->flags & (MFPRIO_TERMF_TEXT | MFPRIO_TERMF_RAW)) || all <= 0
                          ? std::string()
                          : fixed(100.0 * sum[k] / all, 1));
    t.row(cells);
  }
  return t.str();
}

Weights parse_weights(const std::string& info_json) {
  Weights w;
  JsonPtr root(json_loads(info_json.c_str(), 0, nullptr));
  if (!root || !json_is_object(root.get())) return w;
  const char* k;
  json_t* v;
  if (const json_t* obj = iget(root.get(), "weights"); obj && json_is_object(obj)) {
    json_object_foreach(const_cast<json_t*>(obj), k, v) {
      w.cells[lower(k)] = weight_cell(v);
      w.known = true;
    }
    return w;
  }
  static const char kPrefix[] = "priorityweight";
  json_object_foreach(root.get(), k, v) {
    const std::string key = lower(k);
    if (key.size() <= sizeof kPrefix - 1 || key.compare(0, sizeof kPrefix - 1, kPrefix) != 0) continue;
    w.cells[key.substr(sizeof kPrefix - 1)] = weight_cell(v);
    w.known = true;
  }
  return w;
}

int ShareTable::column(const std::string& name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == name) return static_cast<int>(i);
  return -1;
}

void check_share_table(const mfprio_share_table_t& in) {
  if (in.struct_size < sizeof(mfprio_share_table_t))
    throw std::runtime_error("share_table: the table has struct_size " + std::to_string(in.struct_size) +
                             ", expected at least " + std::to_string(sizeof(mfprio_share_table_t)));
  if ((in.column_count && !in.columns) || (in.row_count && !in.rows))
    throw std::runtime_error("share_table: the table has no columns or rows array for its counts");
  if (in.column_count)
    for (size_t i = 0; i < in.row_count; ++i)
      if (!in.rows[i].cells) throw std::runtime_error("share_table: row " + std::to_string(i) + " has no cells");
}

ShareTable share_table_from(const mfprio_share_table_t& in) {
  check_share_table(in);
  ShareTable t;
  for (uint32_t c = 0; c < in.column_count; ++c) {
    const mfprio_share_column_t& col = in.columns[c];
    t.columns.push_back(ShareColumn{str_of(col.name), str_of(col.label), col.decimals, col.width, col.flags});
  }
  t.rows.reserve(in.row_count);
  for (size_t i = 0; i < in.row_count; ++i) {
    const mfprio_share_row_t& r = in.rows[i];
    ShareRow s;
    s.parent = r.parent;
    s.depth = r.depth;
    s.is_user = r.is_user != 0;
    s.account = r.account ? r.account : "";
    s.user = r.user ? r.user : "";
    s.partition = r.partition ? r.partition : "";
    for (uint32_t c = 0; c < in.column_count; ++c) {
      ShareCell cell;
      cell.value = r.cells[c].value;
      cell.has_text = r.cells[c].text != nullptr;
      if (cell.has_text) cell.text = r.cells[c].text;
      s.cells.push_back(std::move(cell));
    }
    t.rows.push_back(std::move(s));
  }
  return t;
}

std::string format_sshare(const ShareTable& table, const SshareOptions& opt) {
  std::vector<size_t> shown;
  std::vector<Column> cols;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const ShareColumn& c = table.columns[i];
    if ((c.flags & MFPRIO_COLF_LONG) && !opt.long_format) continue;
    shown.push_back(i);
    cols.push_back({c.label.c_str(), static_cast<int>(c.width), !(c.flags & MFPRIO_COLF_LEFT)});
  }
  Table t(cols, opt.parsable, opt.no_ending);
  if (opt.header) {
    t.header();
    t.dashes();
  }
  for (const ShareRow& r : table.rows) {
    std::vector<std::string> cells;
    for (size_t i : shown) {
      const ShareColumn& c = table.columns[i];
      const ShareCell* cell = i < r.cells.size() ? &r.cells[i] : nullptr;
      std::string v;
      if (cell && (cell->has_text || (c.flags & MFPRIO_COLF_TEXT))) v = cell->text;
      else if (cell) v = c.decimals < 0 ? integer(cell->value) : fixed(cell->value, c.decimals);
      if (c.flags & MFPRIO_COLF_INDENT) v = std::string(r.depth, ' ') + v;
      cells.push_back(std::move(v));
    }
    t.row(cells);
  }
  return t.str();
}

}  // namespace mfprio::host

// ---- Slurm 22.05 layouts ----------------------------------------------------
namespace mfprio::host {
namespace {

struct Letter {
  char c;
  const char* header;
  const char* term;  // the multifactor term, or nullptr
  bool normalized;
};

// Slurm 22.05's sprio letters (opts.c), plus o and n from later Slurm.
const Letter kLetters[] = {
    {'a', "AGE", "age", true},           {'A', "AGE", "age", false},
    {'b', "ASSOC", "assoc", true},       {'B', "ASSOC", "assoc", false},
    {'c', "CLUSTER", nullptr, false},    {'f', "FAIRSHARE", "fairshare", true},
    {'F', "FAIRSHARE", "fairshare", false}, {'i', "JOBID", nullptr, false},
    {'j', "JOBSIZE", "jobsize", true},   {'J', "JOBSIZE", "jobsize", false},
    {'n', "QOSNAME", "qosname", false},  {'N', "NICE", "nice", false},
    {'o', "ACCOUNT", nullptr, false},    {'p', "PARTITION", "partition", true},
    {'P', "PARTITION", "partition", false}, {'r', "PARTITION", nullptr, false},
    {'S', "SITE", "site", false},        {'q', "QOS", "qos", true},
    {'Q', "QOS", "qos", false},          {'u', "USER", nullptr, false},
    {'y', "PRIORITY", nullptr, true},    {'Y', "PRIORITY", nullptr, false},
    {'t', "TRES", "tres", true},         {'T', "TRES", "tres", false},
};

const Letter* letter_of(char c) {
  for (const Letter& l : kLetters)
    if (l.c == c) return &l;
  return nullptr;
}

// printf("%.0f") / ("%.Nf"): the C library's rounding (exact halves to even).
std::string cfmt(const char* fmt, double v) {
  char buf[128];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

double weight_number(const Weights& w, const std::string& name) {
  const std::string c = w.cell(name);
  char* end = nullptr;
  const double d = std::strtod(c.c_str(), &end);
  return end && end != c.c_str() ? d : 0.0;
}

// The PriorityWeightTRES cell: the "tres" cell, else the tres.* weights.
std::string tres_weights(const Weights& w) {
  std::string s = w.cell("tres");
  if (!s.empty()) return s;
  for (const auto& [k, v] : w.cells) {
    if (k.compare(0, 5, "tres.") != 0) continue;
    if (!s.empty()) s += ',';
    s += k.substr(5) + "=" + v;
  }
  return s;
}

// sprio's _print_str: cut to the width, right- or left-justified.
std::string sprio_cell(const std::string& v, int width, bool right) {
  if (width <= 0) return v;
  std::string s = v.substr(0, static_cast<size_t>(width));
  const std::string pad(static_cast<size_t>(width) - s.size(), ' ');
  return right ? pad + s : s + pad;
}

// One value of a job row (or the Weights row when row is null).
std::string sprio_value(const SprioRow* row, const Letter& l, const Weights& w) {
  const std::string term = l.term ? l.term : "";
  if (!row) {  // the Weights row
    switch (l.c) {
      case 'i': return "Weights";
      case 'S': return "1";
      case 'T': return tres_weights(w);
      case 'a': case 'A': case 'b': case 'B': case 'f': case 'F':
      case 'j': case 'J': case 'p': case 'P': case 'q': case 'Q':
        return cfmt("%.0f", weight_number(w, term));
      default: return "";
    }
  }
  const mfprio_factors_t& f = row->f;
  switch (l.c) {
    case 'i': return std::to_string(row->job_id);
    case 'r': return row->partition;
    case 'u': return row->user;
    case 'o': return row->account;
    case 'c': return "";
    case 'Y': return std::to_string(f.priority);
    case 'y': return cfmt("%16.14f", f.priority / 4294967295.0);
    default: break;
  }
  const int at = find_term(f, term);
  if (at < 0) return l.normalized ? cfmt("%.7f", 0.0) : (l.c == 'n' ? "" : "0");
  const mfprio_term_t& t = f.terms[at];
  if (l.c == 'n') return str_of(t.text);
  if (l.c == 'S' || l.c == 'N') return cfmt("%.0f", t.factor);
  if (l.c == 't' || l.c == 'T') {
    std::string s;
    const uint32_t n = term_count(f);
    for (uint32_t i = 0; i < n; ++i) {
      const mfprio_term_t& c = f.terms[i];
      if (c.parent != at || c.contribution == 0) continue;  // sprio lists the non-zero ones
      if (!s.empty()) s += ',';
      s += str_of(c.name) + "=" + cfmt(l.c == 't' ? "%.2f" : "%.0f", l.c == 't' ? c.factor : c.contribution);
    }
    return s;
  }
  if (l.normalized) return cfmt("%.7f", weight_number(w, term) != 0 ? t.factor : 0.0);
  return cfmt("%.0f", t.contribution);
}

}  // namespace

SprioFormat parse_sprio_format(const std::string& format) {
  SprioFormat out;
  size_t pos = format.find('%');
  out.prefix = format.substr(0, pos);
  while (pos != std::string::npos) {
    size_t i = pos + 1;
    SprioField fld;
    if (i < format.size() && format[i] == '.') {
      fld.right = true;
      ++i;
    }
    while (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i])) && fld.width < 10000)
      fld.width = fld.width * 10 + (format[i++] - '0');
    if (i >= format.size()) throw std::invalid_argument("format '" + format + "' ends inside a field");
    fld.letter = format[i++];
    if (!letter_of(fld.letter))
      throw std::invalid_argument(std::string("invalid job format specification: %") + fld.letter +
                                  " (--helpformat lists the letters)");
    const size_t next = format.find('%', i);
    fld.suffix = format.substr(i, next == std::string::npos ? std::string::npos : next - i);
    out.fields.push_back(std::move(fld));
    pos = next;
  }
  return out;
}

std::string default_sprio_format(bool long_format, bool normalized, bool users, const Weights& w) {
  if (long_format)
    return normalized ? "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t"
                      : "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T";
  std::string s = "%.15i %9r";
  if (users) s += " %.8u";
  s += normalized ? " %10y" : " %.10Y %.10S";
  const struct {
    const char* term;
    const char* norm;
    const char* weighted;
  } cols[] = {{"age", " %10a", " %.10A"},       {"assoc", " %10b", " %.10B"},   {"fairshare", " %10f", " %.10F"},
              {"jobsize", " %10j", " %.10J"},   {"partition", " %10p", " %.10P"}, {"qos", " %10q", " %.10Q"}};
  for (const auto& c : cols)
    if (weight_number(w, c.term) != 0) s += normalized ? c.norm : c.weighted;
  // Slurm 22.05.8's sprio (checked live): the weighted TRES column is
  // right-justified (%.20T), the normalized one left-justified (%20t).
  if (!tres_weights(w).empty()) s += normalized ? " %20t" : " %.20T";
  return s;
}

std::string sprio_helpformat() {
  std::string s;
  int n = 0;
  for (const Letter& l : kLetters) {
    if (n && n % 8 == 0) s += '\n';
    char buf[16];
    std::snprintf(buf, sizeof buf, "%%%-5c", l.c);
    s += buf;
    ++n;
  }
  return s + "\n";
}

std::string format_sprio_slurm(const std::vector<SprioRow>& rows, const SprioFormat& f, const SprioOptions& opt,
                               const Weights& w) {
  std::string out;
  auto line = [&](const SprioRow* row, bool header) {
    std::string s = opt.parsable ? std::string() : f.prefix;
    for (const SprioField& fld : f.fields) {
      const Letter& l = *letter_of(fld.letter);
      const std::string v = header ? l.header : sprio_value(row, l, w);
      if (opt.parsable) {
        s += v + "|";
        continue;
      }
      s += sprio_cell(v, fld.width, fld.right) + fld.suffix;
    }
    out += s + "\n";
  };
  if (opt.header) line(nullptr, true);
  if (opt.weights) {
    line(nullptr, false);
    return out;
  }
  for (const SprioRow& r : rows) line(&r, false);
  return out;
}

void sort_sprio_rows(std::vector<SprioRow>* rows, const std::string& spec, const Weights& w) {
  struct Key {
    const Letter* l;
    bool desc;
  };
  std::vector<Key> keys;
  for (std::string item : split_nonempty(spec, ',')) {
    bool desc = false;
    if (!item.empty() && (item[0] == '-' || item[0] == '+')) {
      desc = item[0] == '-';
      item.erase(0, 1);
    }
    // Slurm's sprio sorts by these letters (sort.c); not by S, b, B.
    if (item.size() != 1 || std::string("ciNnoruAaFfJjPpQqTtYy").find(item[0]) == std::string::npos)
      throw std::invalid_argument("-S/--sort: '" + item + "' is not a sprio sort letter (c i N n o r u, a/A f/F j/J "
                                  "p/P q/Q t/T y/Y)");
    keys.push_back({letter_of(item[0]), desc});
  }
  auto value = [&](const SprioRow& r, const Letter& l, double* num) -> std::string {
    *num = 0;
    switch (l.c) {
      case 'i': *num = static_cast<double>(r.job_id); return "";
      case 'y': case 'Y': *num = r.f.priority; return "";
      case 'r': return r.partition;
      case 'u': return r.user;
      case 'o': return r.account;
      case 'c': return "";
      default: break;
    }
    const int at = l.term ? find_term(r.f, l.term) : -1;
    if (at < 0) return "";
    if (l.c == 'n') return str_of(r.f.terms[at].text);
    const mfprio_term_t& t = r.f.terms[at];
    // Weighted and normalized sort alike (Slurm sorts by the weighted values; TRES by their sum).
    *num = l.c == 'N' ? t.factor : t.contribution;
    return "";
  };
  (void)w;
  mfprio::stable_order(rows->begin(), rows->end(), [&](const SprioRow& a, const SprioRow& b) {
    for (const Key& k : keys) {
      double x = 0, y = 0;
      const std::string sa = value(a, *k.l, &x), sb = value(b, *k.l, &y);
      int c = sa < sb ? -1 : sa > sb ? 1 : x < y ? -1 : x > y ? 1 : 0;
      if (k.desc) c = -c;
      if (c) return c < 0;
    }
    return false;
  });
}

// ---- sshare ----
namespace {
// Slurm's sshare fields (process.c), in its order (prefix matching goes by it).
struct ShareFieldDef {
  const char* name;
  int len;
  const char* column;  // our share table's column, or nullptr (host-side)
  char kind;           // s string, d double, u integer (truncated), t TRES list
};
const ShareFieldDef kShareFields[] = {
    {"Account", -20, "account", 's'},     {"Cluster", 10, nullptr, 's'},
    {"EffectvUsage", 13, "eff_usage", 'd'}, {"FairShare", 10, "fairshare", 'd'},
    {"LevelFS", 10, "level_fs", 'd'},     {"ID", 6, nullptr, 'u'},
    {"NormShares", 11, "norm_shares", 'd'}, {"NormUsage", 11, "norm_usage", 'd'},
    {"Partition", 12, nullptr, 's'},      {"RawShares", 10, "raw_shares", 'u'},
    {"RawUsage", 11, "raw_usage", 'u'},   {"User", 10, "user", 's'},
    {"GrpTRESMins", 30, "grp_tres_mins", 't'}, {"TRESRunMins", 30, "tres_run_mins", 't'},
};

const ShareFieldDef* share_field(const std::string& name) {
  for (const ShareFieldDef& d : kShareFields)
    if (name == d.name) return &d;
  return nullptr;
}
}  // namespace

std::vector<ShareField> parse_sshare_format(const std::string& list) {
  std::vector<ShareField> out;
  for (std::string item : split_nonempty(list, ',')) {
    int len = 0;
    bool has_len = false;
    if (size_t pct = item.find('%'); pct != std::string::npos) {
      len = std::atoi(item.c_str() + pct + 1);
      has_len = len != 0;
      item.erase(pct);
    }
    const ShareFieldDef* found = nullptr;
    for (const ShareFieldDef& d : kShareFields)
      if (!item.empty() && strncasecmp(d.name, item.c_str(), item.size()) == 0) {
        found = &d;
        break;
      }
    if (!found) throw std::invalid_argument("Invalid field requested: \"" + item + "\" (-e lists the fields)");
    out.push_back(ShareField{found->name, has_len ? len : found->len});
  }
  return out;
}

std::string default_sshare_format(bool long_format, bool partitions, bool fair_tree) {
  std::string s = partitions ? "A,User,P,RawShares,NormShares,RawUsage" : "A,User,RawShares,NormShares,RawUsage";
  if (long_format) s += fair_tree ? ",NormUsage,Eff,Fairshare,LevelFS,GrpTRESMins,TRESRunMins"
                                  : ",NormUsage,Eff,Fairshare,GrpTRESMins,TRESRunMins";
  else s += ",Eff,Fairshare";
  return s;
}

std::string sshare_helpformat() {
  std::string s;
  int i = 0;
  for (const ShareFieldDef& d : kShareFields) {
    if (i & 3) s += ' ';
    else if (i) s += '\n';
    char buf[32];
    std::snprintf(buf, sizeof buf, "%-17s", d.name);
    s += buf;
    ++i;
  }
  return s + "\n";
}

namespace {

// One cell as the sshare writer reads it, from either table form.
struct CellRef {
  double value = 0;
  const char* text = "";  // never null
  size_t len = 0;
  bool has_text = false;
};

// One row: the plugin's (raw) or a ShareRow (own); ncells cells.
struct RowRef {
  uint32_t depth = 0;
  bool is_user = false;
  const char* partition = "";
  size_t partition_len = 0;
  const mfprio_share_cell_t* raw = nullptr;
  const ShareCell* own = nullptr;
  size_t ncells = 0;

  CellRef cell(size_t c) const {
    CellRef r;
    if (raw) {
      r.value = raw[c].value;
      if (raw[c].text) r.text = raw[c].text, r.len = std::strlen(raw[c].text), r.has_text = true;
    } else {
      r.value = own[c].value;
      r.text = own[c].text.c_str(), r.len = own[c].text.size(), r.has_text = own[c].has_text;
    }
    return r;
  }
};

// Slurm's print_fields over rows, appended to one buffer that goes to `out`
// (when set) every 64 KiB.
class SshareWriter {
 public:
  static constexpr size_t kChunk = size_t{1} << 16;

  SshareWriter(const std::vector<ShareField>& fields, const SshareSlurmOptions& opt,
               const std::function<int(const char*)>& column_of, std::FILE* out)
      : opt_(opt), out_(out) {
    for (size_t i = 0; i < fields.size(); ++i) {
      Plan p;
      p.f = &fields[i];
      p.def = share_field(fields[i].name);
      p.col = p.def->column ? column_of(p.def->column) : -1;
      p.abs_len = static_cast<size_t>(fields[i].len < 0 ? -fields[i].len : fields[i].len);
      p.last = i + 1 == fields.size();
      const std::string& n = fields[i].name;
      p.role = n == "Partition" ? Plan::Partition : n == "Account" ? Plan::Account : n == "User" ? Plan::User
                                                                                                  : Plan::Other;
      plan_.push_back(p);
    }
    buf_.resize(out_ ? kChunk + 4096 : 4096);
  }

  void header() {
    for (const Plan& p : plan_) {
      // print_fields_header: "%*.*s" (cut to the width, no '+').
      const std::string& name = p.f->name;
      put(p, name.data(), opt_.parsable ? name.size() : std::min(name.size(), p.abs_len), false, 'h');
    }
    chr('\n');
    if (!opt_.parsable) {
      for (const Plan& p : plan_) {
        fill(p.abs_len, '-');
        chr(' ');
      }
      chr('\n');
    }
  }

  void row(const RowRef& r) {
    for (const Plan& p : plan_) {
      const char* v = "";
      size_t len = 0;
      bool blank = false;
      const bool has_cell = p.col >= 0 && static_cast<size_t>(p.col) < r.ncells;
      const CellRef cell = has_cell ? r.cell(static_cast<size_t>(p.col)) : CellRef{};
      if (p.role == Plan::Partition) {
        v = r.partition, len = r.partition_len, blank = len == 0;
      } else if (!has_cell) {
        blank = true;
      } else if (p.def->kind == 's' || p.def->kind == 't' || cell.has_text) {
        v = cell.text, len = cell.len, blank = len == 0;
        if (p.role == Plan::Account) {  // indented by depth: put() of depth spaces + the text
          put_indented(p, r.depth, cell.text, cell.len);
          continue;
        }
        if (p.role == Plan::User && !r.is_user) blank = true, v = "", len = 0;
      } else if (p.def->kind == 'u') {
        if (!std::isfinite(cell.value)) blank = true;
        const double x = std::isfinite(cell.value) && cell.value > 0 ? cell.value : 0;  // (uint64_t): truncation
        len = static_cast<size_t>(
            std::to_chars(num_, num_ + sizeof num_, static_cast<unsigned long long>(x)).ptr - num_);
        v = num_;
      } else {
        len = printf_fixed(num_, sizeof num_, cell.value, 6);  // "%f"
        v = num_;
        if (!opt_.parsable && len > p.abs_len) {  // print_fields_double's %e fallback
          int width = static_cast<int>(p.abs_len);
          std::snprintf(num_, sizeof num_, "%*.*e", width, width, cell.value);
          const int n = static_cast<int>(std::strlen(num_));
          if (n > width) width -= n - width;
          std::snprintf(num_, sizeof num_, "%*.*e", width, width < 0 ? 0 : width, cell.value);
          len = std::strlen(num_);
        }
      }
      put(p, v, len, blank, p.def->kind);
    }
    chr('\n');
    if (out_ && n_ >= kChunk) flush();
  }

  void flush() {
    if (out_ && n_) std::fwrite(buf_.data(), 1, n_, out_);
    n_ = 0;
  }
  std::string take() {
    buf_.resize(n_);
    return std::move(buf_);
  }

 private:
  struct Plan {
    const ShareField* f = nullptr;
    const ShareFieldDef* def = nullptr;
    int col = -1;
    size_t abs_len = 0;
    bool last = false;
    enum Role { Partition, Account, User, Other } role = Other;
  };

  // One field: the value (blank = unset), then padding / separator as print_fields does.
  void put(const Plan& p, const char* v, size_t len, bool blank, char kind) {
    if (opt_.parsable) {
      put_bytes(v, len);
      if (!(opt_.no_ending && p.last)) chr('|');
      return;
    }
    size_t clen = blank ? 0 : len;
    bool cut = false;
    if ((kind == 's' || kind == 't') && clen > p.abs_len && p.abs_len > 0) clen = p.abs_len, cut = true;
    const size_t pad = clen < p.abs_len ? p.abs_len - clen : 0;
    if (p.f->len >= 0) fill(pad, ' ');
    if (cut) {
      put_bytes(v, clen - 1);
      chr('+');
    } else {
      put_bytes(v, clen);
    }
    if (p.f->len < 0) fill(pad, ' ');
    chr(' ');
  }

  // put() of `depth` spaces followed by t (the Account field), without building that text.
  void put_indented(const Plan& p, size_t depth, const char* t, size_t tlen) {
    if (opt_.parsable) {
      fill(depth, ' ');
      put_bytes(t, tlen);
      if (!(opt_.no_ending && p.last)) chr('|');
      return;
    }
    size_t clen = depth + tlen;
    bool cut = false;
    if (clen > p.abs_len && p.abs_len > 0) clen = p.abs_len, cut = true;  // kind 's'
    const size_t pad = clen < p.abs_len ? p.abs_len - clen : 0;
    if (p.f->len >= 0) fill(pad, ' ');
    const size_t body = cut ? clen - 1 : clen, spaces = std::min(depth, body);
    fill(spaces, ' ');
    put_bytes(t, body - spaces);
    if (cut) chr('+');
    if (p.f->len < 0) fill(pad, ' ');
    chr(' ');
  }

  // buf_[0, n_) is the text so far; buf_ grows (never shrinks) to fit.
  char* room(size_t k) {
    if (n_ + k > buf_.size()) buf_.resize(std::max(buf_.size() * 2, n_ + k));
    return &buf_[n_];
  }
  void put_bytes(const char* v, size_t len) {
    if (v >= num_ && v < num_ + sizeof num_ && len <= kSmall) {
      std::memcpy(room(kSmall), v, kSmall);  // a constant size: no call (num_ has the bytes)
    } else {
      std::memcpy(room(len), v, len);
    }
    n_ += len;
  }
  void fill(size_t k, char c) {
    if (k <= kSmall) {
      std::memset(room(kSmall), c, kSmall);  // a constant size: no call; the rest is overwritten
    } else {
      std::memset(room(k), c, k);
    }
    n_ += k;
  }
  static constexpr size_t kSmall = 32;
  void chr(char c) {
    *room(1) = c;
    ++n_;
  }

  SshareSlurmOptions opt_;
  std::FILE* out_;
  std::vector<Plan> plan_;
  std::string buf_;
  size_t n_ = 0;
  char num_[128] = {};
};

}  // namespace

std::string format_sshare_slurm(const ShareTable& table, const std::vector<ShareField>& fields,
                                const SshareSlurmOptions& opt) {
  SshareWriter w(fields, opt, [&](const char* name) { return table.column(name); }, nullptr);
  if (opt.header) w.header();
  for (const ShareRow& r : table.rows) {
    RowRef ref;
    ref.depth = r.depth;
    ref.is_user = r.is_user;
    ref.partition = r.partition.c_str();
    ref.partition_len = r.partition.size();
    ref.own = r.cells.data();
    ref.ncells = r.cells.size();
    w.row(ref);
  }
  return w.take();
}

void write_sshare_slurm(const mfprio_share_table_t& table, const std::vector<ShareField>& fields,
                        const SshareSlurmOptions& opt, const std::function<bool(const mfprio_share_row_t&)>& keep,
                        std::FILE* out) {
  check_share_table(table);
  SshareWriter w(fields, opt,
                 [&](const char* name) {
                   for (uint32_t c = 0; c < table.column_count; ++c)
                     if (str_of(table.columns[c].name) == name) return static_cast<int>(c);
                   return -1;
                 },
                 out);
  if (opt.header) w.header();
  for (size_t i = 0; i < table.row_count; ++i) {
    const mfprio_share_row_t& r = table.rows[i];
    if (keep && !keep(r)) continue;
    RowRef ref;
    ref.depth = r.depth;
    ref.is_user = r.is_user != 0;
    if (r.partition) ref.partition = r.partition, ref.partition_len = std::strlen(r.partition);
    ref.raw = r.cells;
    ref.ncells = table.column_count;
    w.row(ref);
  }
  w.flush();
}

}  // namespace mfprio::host
