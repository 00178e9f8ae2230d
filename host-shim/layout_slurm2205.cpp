// layout_slurm2205.cpp - see layout_slurm2205.hpp.
#include "layout_slurm2205.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <cctype>
#include <iostream>
#include <stdexcept>
#include <strings.h>

#include "stable_order.hpp"
#include "strings.hpp"

namespace mfprio::host {
namespace {

// A fixed-size char array from the ABI, up to its first NUL.
template <size_t N>
std::string str_of(const char (&a)[N]) {
  return std::string(a, strnlen(a, N));
}

uint32_t term_count(const mfprio_factors_t& f) {
  return f.term_count < MFPRIO_MAX_TERMS ? f.term_count : MFPRIO_MAX_TERMS;
}

int find_term(const mfprio_factors_t& f, const std::string& name) { return find_top_term(f, name); }

// The family's term a slot names ("" when it names none).
std::string slot_term(const SlotTerms& terms, char slot) {
  if (!slot) return std::string();
  auto it = terms.find(std::string(1, slot));
  return it == terms.end() ? std::string() : it->second;
}

}  // namespace
namespace {

struct Letter {
  char c;
  const char* header;
  char slot;  // the "view"."terms" slot the letter reads, or 0
  bool normalized;
};

// Slurm 22.05's sprio letters (opts.c), plus o and n from later Slurm.
const Letter kLetters[] = {
    {'a', "AGE", 'A', true},           {'A', "AGE", 'A', false},
    {'b', "ASSOC", 'B', true},         {'B', "ASSOC", 'B', false},
    {'c', "CLUSTER", 0, false},        {'f', "FAIRSHARE", 'F', true},
    {'F', "FAIRSHARE", 'F', false},    {'i', "JOBID", 0, false},
    {'j', "JOBSIZE", 'J', true},       {'J', "JOBSIZE", 'J', false},
    {'n', "QOSNAME", 'n', false},      {'N', "NICE", 'N', false},
    {'o', "ACCOUNT", 0, false},        {'p', "PARTITION", 'P', true},
    {'P', "PARTITION", 'P', false},    {'r', "PARTITION", 0, false},
    {'S', "SITE", 'S', false},         {'q', "QOS", 'Q', true},
    {'Q', "QOS", 'Q', false},          {'u', "USER", 0, false},
    {'y', "PRIORITY", 0, true},        {'Y', "PRIORITY", 0, false},
    {'t', "TRES", 'T', true},          {'T', "TRES", 'T', false},
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

// The TRES weights cell: the T term's cell, else its "T.NAME" weights.
std::string tres_weights(const Weights& w, const SlotTerms& terms) {
  const std::string term = slot_term(terms, 'T');
  if (term.empty()) return std::string();
  std::string s = w.cell(term);
  if (!s.empty()) return s;
  const std::string prefix = term + ".";
  for (const auto& [k, v] : w.cells) {
    if (k.size() <= prefix.size() || strncasecmp(k.c_str(), prefix.c_str(), prefix.size()) != 0) continue;
    if (!s.empty()) s += ',';
    s += k.substr(prefix.size()) + "=" + v;
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
std::string sprio_value(const SprioRow* row, const Letter& l, const Weights& w, const SlotTerms& terms) {
  const std::string term = slot_term(terms, l.slot);
  if (!row) {  // the Weights row
    switch (l.c) {
      case 'i': return "Weights";
      case 'S': return "1";
      case 'T': return tres_weights(w, terms);
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
  const int at = term.empty() ? -1 : find_term(f, term);
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

std::string default_sprio_format(bool long_format, bool normalized, bool users, const Weights& w,
                                 const SlotTerms& terms) {
  if (long_format)
    return normalized ? "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t"
                      : "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T";
  std::string s = "%.15i %9r";
  if (users) s += " %.8u";
  s += normalized ? " %10y" : " %.10Y %.10S";
  const struct {
    char slot;
    const char* norm;
    const char* weighted;
  } cols[] = {{'A', " %10a", " %.10A"}, {'B', " %10b", " %.10B"}, {'F', " %10f", " %.10F"},
              {'J', " %10j", " %.10J"}, {'P', " %10p", " %.10P"}, {'Q', " %10q", " %.10Q"}};
  for (const auto& c : cols) {
    const std::string term = slot_term(terms, c.slot);
    if (!term.empty() && weight_number(w, term) != 0) s += normalized ? c.norm : c.weighted;
  }
  // Slurm 22.05.8's sprio (checked live): the weighted TRES column is
  // right-justified (%.20T), the normalized one left-justified (%20t).
  if (!tres_weights(w, terms).empty()) s += normalized ? " %20t" : " %.20T";
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
                               const Weights& w, const SlotTerms& terms) {
  std::string out;
  auto line = [&](const SprioRow* row, bool header) {
    std::string s = opt.parsable ? std::string() : f.prefix;
    for (const SprioField& fld : f.fields) {
      const Letter& l = *letter_of(fld.letter);
      const std::string v = header ? l.header : sprio_value(row, l, w, terms);
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

void sort_sprio_rows(std::vector<SprioRow>* rows, const std::string& spec, const SlotTerms& terms) {
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
    const std::string term = slot_term(terms, l.slot);
    const int at = term.empty() ? -1 : find_term(r.f, term);
    if (at < 0) return "";
    if (l.c == 'n') return str_of(r.f.terms[at].text);
    const mfprio_term_t& t = r.f.terms[at];
    // Weighted and normalized sort alike (Slurm sorts by the weighted values; TRES by their sum).
    *num = l.c == 'N' ? t.factor : t.contribution;
    return "";
  };
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
  bool from_table;  // a share_table column ("share_columns" names it); else host-side or blank
  char kind;        // s string, d double, u integer (truncated), t TRES list
};
const ShareFieldDef kShareFields[] = {
    {"Account", -20, true, 's'},      {"Cluster", 10, false, 's'},
    {"EffectvUsage", 13, true, 'd'},  {"FairShare", 10, true, 'd'},
    {"LevelFS", 10, true, 'd'},       {"ID", 6, false, 'u'},
    {"NormShares", 11, true, 'd'},    {"NormUsage", 11, true, 'd'},
    {"Partition", 12, false, 's'},    {"RawShares", 10, true, 'u'},
    {"RawUsage", 11, true, 'u'},      {"User", 10, true, 's'},
    {"GrpTRESMins", 30, true, 't'},   {"TRESRunMins", 30, true, 't'},
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
               const std::function<int(const std::string&)>& column_of, const ShareColumns& columns, std::FILE* out)
      : opt_(opt), out_(out) {
    for (size_t i = 0; i < fields.size(); ++i) {
      Plan p;
      p.f = &fields[i];
      p.def = share_field(fields[i].name);
      const auto named = columns.find(p.def->name);
      p.col = p.def->from_table && named != columns.end() ? column_of(named->second) : -1;
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
                                const SshareSlurmOptions& opt, const ShareColumns& columns) {
  SshareWriter w(fields, opt, [&](const std::string& name) { return table.column(name); }, columns, nullptr);
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
                        std::FILE* out, const ShareColumns& columns) {
  check_share_table(table);
  SshareWriter w(fields, opt,
                 [&](const std::string& name) {
                   for (uint32_t c = 0; c < table.column_count; ++c)
                     if (str_of(table.columns[c].name) == name) return static_cast<int>(c);
                   return -1;
                 },
                 columns, out);
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

// ---- the layout ----
namespace {

class Slurm2205 final : public Layout {
 public:
  const char* name() const override { return "slurm-22.05"; }

  bool sprio(const std::vector<SprioRow>& rows, const Options& o, const ViewInfo& v,
             std::string* out) const override {
    if (o.percent && !o.has_format) return false;  // Maui's diagnose -p row: the generic layout has it
    SprioOptions so;
    so.long_format = o.long_format;
    so.normalized = o.normalized;
    so.weights = o.weights;
    so.parsable = o.parsable;
    so.header = !o.noheader;
    SprioFormat fmt;
    try {
      fmt = parse_sprio_format(o.has_format ? o.format
                                            : default_sprio_format(o.long_format, o.normalized, !o.users.empty(),
                                                                   v.weights, v.terms));
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("sprio -o: ") + e.what());
    }
    if (!o.job_ids.empty() && rows.empty() && !o.weights)
      *out = "Unable to find jobs matching user/id(s) specified\n";  // Slurm's words
    else
      *out = format_sprio_slurm(rows, fmt, so, v.weights, v.terms);
    return true;
  }

  bool sshare(const mfprio_share_table_t& table, const Options& o, const ViewInfo& v,
              const std::function<bool(const mfprio_share_row_t&)>& keep, std::FILE* out) const override {
    // Slurm's default fields (LevelFS only under Fair Tree: the family's "level_fs") or -o's.
    const std::vector<ShareField> fields = parse_sshare_format(
        o.has_format ? o.format : default_sshare_format(o.long_format, o.share_partitions, v.flag("level_fs", true)));
    SshareSlurmOptions so;
    so.parsable = o.parsable;
    so.no_ending = o.parsable_no_ending;
    so.header = !o.noheader;
    write_sshare_slurm(table, fields, so, keep, out, v.share_columns);
    return true;
  }

  void sort(std::vector<SprioRow>* rows, const std::string& spec, const ViewInfo& v) const override {
    sort_sprio_rows(rows, spec, v.terms);
  }

  void check(const Options& o) const override {
    if (o.command == Command::Sprio && o.has_format) (void)parse_sprio_format(o.format);
    if (o.command == Command::Sprio && !o.sort.empty()) {
      std::vector<SprioRow> none;
      sort_sprio_rows(&none, o.sort);
    }
    if (o.command == Command::Sshare && o.has_format) (void)parse_sshare_format(o.format);
  }

  std::string helpformat(Command c) const override {
    return c == Command::Sprio ? sprio_helpformat() : sshare_helpformat();
  }
};

}  // namespace

const Layout& slurm2205_layout() {
  static const Slurm2205 layout;
  return layout;
}

}  // namespace mfprio::host
