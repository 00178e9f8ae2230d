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

int find_top_term(const mfprio_factors_t& f, const std::string& name) { return find_term(f, name); }

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
      // "SERV.QUEUETIME" beside "SERV" is a sub-term's weight, not a column.
      const char* dot = std::strrchr(k, '.');
      if (dot && json_object_get(w, std::string(k, dot).c_str())) continue;
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
  }
  return w;
}

std::optional<WeightProduct> weight_product(double term_weight, double weight) {
  if (term_weight == 0) return std::nullopt;
  return WeightProduct{term_weight, weight / term_weight};
}

void put_weight_product(json_t* term_obj, const WeightProduct& p) {
  json_t* wp = json_array();
  json_array_append_new(wp, json_real(p.term));
  json_array_append_new(wp, json_real(p.own));
  json_object_set_new(term_obj, "weight_product", wp);
}

void put_weight_products(json_t* factors_doc) {
  const json_t* terms = json_object_get(factors_doc, "terms");
  size_t i;
  json_t* t;
  json_array_foreach(terms, i, t) {
    const json_t* parent = json_object_get(t, "parent");
    if (!json_is_integer(parent) || json_integer_value(parent) < 0) continue;
    const json_t* top = json_array_get(terms, static_cast<size_t>(json_integer_value(parent)));
    const json_t* top_weight = json_object_get(top, "weight");
    const json_t* weight = json_object_get(t, "weight");
    if (!json_is_number(top_weight) || !json_is_number(weight)) continue;  // "inf"/"nan" are strings
    if (auto p = weight_product(json_number_value(top_weight), json_number_value(weight))) put_weight_product(t, *p);
  }
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
