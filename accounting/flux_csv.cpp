// flux_csv.cpp - see flux_csv.hpp.
//
// One table-driven reader: each file kind lists its columns (canonical name,
// a setter that parses the text) and its headerless legacy order; the reader
// maps the header (or the legacy order) to setters and fills a record per row.
#include "flux_csv.hpp"

#include "numbers.hpp"
#include "strings.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <iterator>
#include <type_traits>
#include <utility>

namespace mfprio::flux {
namespace {

std::string where(const std::string& file, int line) { return file + ":" + std::to_string(line); }

// The CSV number rules (numbers.hpp): Python wrote these files.
bool to_int(const std::string& s, int64_t* v) { return parse_i64(s, v); }
bool to_double(const std::string& s, double* v) { return parse_decimal(s, v); }

// "batch, debug" -> {"batch", "debug"}; empty items dropped.
std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> v;
  size_t start = 0;
  for (;;) {
    const size_t c = s.find(',', start);
    std::string item = trim_space(s.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (!item.empty()) v.push_back(std::move(item));
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return v;
}

// "ParentBank" -> "parent_bank", "max_nodes" stays, "UserID" -> "user_id".
std::string column_key(const std::string& raw) {
  const std::string s = trim_space(raw);
  std::string k;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isupper(c) && i > 0 &&
        (std::islower(static_cast<unsigned char>(s[i - 1])) || std::isdigit(static_cast<unsigned char>(s[i - 1]))))
      k += '_';
    k += static_cast<char>(std::tolower(c));
  }
  return k;
}

bool column_like(const std::string& f) {
  const std::string s = trim_space(f);
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// A setter parses `v` (never empty: empty fields keep the default) into *r;
// on failure it names what it expected in *what.
template <class R>
using Setter = bool (*)(R*, const std::string& v, const char** what);

template <class R>
struct Column {
  const char* name;
  const char* alias;  // a second accepted spelling, or nullptr
  Setter<R> set;
};

template <class R>
struct Kind {
  const char* what;              // "bank", "user", "queue": for messages
  const Column<R>* columns;
  size_t ncolumns;
  std::vector<const char*> required;  // columns a header must name, values must fill
  std::vector<const char*> legacy;    // headerless order; empty = header required
};

#define INT_SETTER(R, field)                                        \
  [](R* r, const std::string& v, const char** what) {               \
    if (!to_int(v, &r->field)) return (*what = "an integer", false); \
    return true;                                                    \
  }
#define NONNEG_INT_SETTER(R, field)                                                         \
  [](R* r, const std::string& v, const char** what) {                                       \
    if (!to_int(v, &r->field) || r->field < 0) return (*what = "an integer >= 0", false);   \
    return true;                                                                            \
  }
#define DOUBLE_SETTER(R, field)                                     \
  [](R* r, const std::string& v, const char** what) {               \
    if (!to_double(v, &r->field)) return (*what = "a number", false); \
    return true;                                                    \
  }
#define STRING_SETTER(R, field)                          \
  [](R* r, const std::string& v, const char**) {         \
    r->field = v;                                        \
    return true;                                         \
  }
#define BOOL_SETTER(R, field)                                         \
  [](R* r, const std::string& v, const char** what) {                 \
    int64_t x;                                                        \
    if (!to_int(v, &x) || (x != 0 && x != 1)) return (*what = "0 or 1", false); \
    r->field = x != 0;                                                \
    return true;                                                      \
  }
#define LIST_SETTER(R, field)                            \
  [](R* r, const std::string& v, const char**) {         \
    r->field = split_list(v);                            \
    return true;                                         \
  }

const Column<BankRecord> kBankColumns[] = {
    {"bank", nullptr, STRING_SETTER(BankRecord, name)},
    {"parent_bank", nullptr, STRING_SETTER(BankRecord, parent)},
    {"shares", nullptr, NONNEG_INT_SETTER(BankRecord, shares)},
    {"priority", nullptr, DOUBLE_SETTER(BankRecord, priority)},
    {"active", nullptr, BOOL_SETTER(BankRecord, active)},
    {"job_usage", nullptr, DOUBLE_SETTER(BankRecord, job_usage)},
};

const Column<UserRecord> kUserColumns[] = {
    {"username", nullptr, STRING_SETTER(UserRecord, username)},
    {"userid", "user_id", INT_SETTER(UserRecord, userid)},
    {"bank", nullptr, STRING_SETTER(UserRecord, bank)},
    {"default_bank", nullptr, STRING_SETTER(UserRecord, default_bank)},
    {"shares", nullptr, NONNEG_INT_SETTER(UserRecord, shares)},
    {"active", nullptr, BOOL_SETTER(UserRecord, active)},
    {"job_usage", nullptr, DOUBLE_SETTER(UserRecord, job_usage)},
    {"fairshare", nullptr, DOUBLE_SETTER(UserRecord, fairshare)},
    {"max_running_jobs", nullptr, INT_SETTER(UserRecord, max_running_jobs)},
    {"max_active_jobs", nullptr, INT_SETTER(UserRecord, max_active_jobs)},
    {"max_nodes", nullptr, INT_SETTER(UserRecord, max_nodes)},
    {"max_cores", nullptr, INT_SETTER(UserRecord, max_cores)},
    {"queues", nullptr, LIST_SETTER(UserRecord, queues)},
    {"projects", nullptr, LIST_SETTER(UserRecord, projects)},
    {"default_project", nullptr, STRING_SETTER(UserRecord, default_project)},
};

const Column<QueueRecord> kQueueColumns[] = {
    {"queue", nullptr, STRING_SETTER(QueueRecord, name)},
    {"priority", nullptr, INT_SETTER(QueueRecord, priority)},
};

const Column<FactorRecord> kFactorColumns[] = {
    {"factor", nullptr, STRING_SETTER(FactorRecord, name)},
    {"weight", nullptr, INT_SETTER(FactorRecord, weight)},
};

const Column<ConfigRecord> kConfigColumns[] = {
    {"key", nullptr, STRING_SETTER(ConfigRecord, name)},
    {"value", nullptr, STRING_SETTER(ConfigRecord, value)},
};

template <class R>
const Column<R>* find_column(const Kind<R>& k, const std::string& key) {
  for (size_t i = 0; i < k.ncolumns; ++i)
    if (key == k.columns[i].name || (k.columns[i].alias && key == k.columns[i].alias)) return &k.columns[i];
  return nullptr;
}

template <class R>
bool read_table(const std::string& text, const std::string& file, const Kind<R>& kind,
                std::vector<R>* out, std::string* why) {
  auto fail = [&](std::string m) {
    if (why) *why = std::move(m);
    return false;
  };
  std::vector<CsvRecord> recs;
  if (!split_csv(text, file, &recs, why)) return false;
  if (recs.empty()) {
    if (kind.legacy.empty()) return fail(file + ": empty file (expected a header row)");
    out->clear();
    return true;
  }

  // Header or legacy order?
  bool header = true;
  for (const std::string& f : recs[0].fields)
    if (!column_like(f)) header = false;
  if (header) {
    bool has_key = false;
    for (const std::string& f : recs[0].fields)
      if (column_key(f) == kind.required[0]) has_key = true;
    header = has_key;
  }
  std::vector<const Column<R>*> cols;  // per position; nullptr = ignored column
  std::vector<std::string> names;      // per position, for messages
  size_t first = 0;
  if (header) {
    first = 1;
    for (const std::string& f : recs[0].fields) {
      const std::string key = column_key(f);
      const Column<R>* c = find_column(kind, key);
      for (size_t i = 0; c && i < cols.size(); ++i)
        if (cols[i] == c) return fail(where(file, recs[0].line) + ": column '" + key + "' appears twice");
      cols.push_back(c);
      names.push_back(key);
    }
    for (const char* req : kind.required) {
      bool found = false;
      for (const auto* c : cols)
        if (c && std::string(c->name) == req) found = true;
      if (!found) return fail(where(file, recs[0].line) + ": header has no '" + req + "' column");
    }
  } else {
    if (kind.legacy.empty())
      return fail(where(file, recs[0].line) + ": expected a header row naming the columns (one of them '" +
                  kind.required[0] + "')");
    for (const char* n : kind.legacy) {
      cols.push_back(find_column(kind, n));
      names.push_back(n);
    }
  }

  std::vector<R> rows;
  std::map<std::string, int> seen;  // record key -> line
  for (size_t r = first; r < recs.size(); ++r) {
    const CsvRecord& rec = recs[r];
    if (rec.fields.size() != cols.size())
      return fail(where(file, rec.line) + ": " + std::to_string(rec.fields.size()) + " fields, expected " +
                  std::to_string(cols.size()));
    R row;
    row.line = rec.line;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (!cols[i]) continue;
      const std::string v = trim_space(rec.fields[i]);
      if (v.empty()) {
        for (const char* req : kind.required)
          if (std::string(cols[i]->name) == req)
            return fail(where(file, rec.line) + ": column '" + names[i] + "' is empty (a " + kind.what +
                        " needs it)");
        continue;
      }
      const char* what = "";
      if (!cols[i]->set(&row, v, &what))
        return fail(where(file, rec.line) + ": column '" + names[i] + "': '" + v + "' is not " + what);
    }
    if constexpr (std::is_same_v<R, UserRecord>)
      for (size_t i = 0; i < cols.size(); ++i) {
        if (!cols[i]) continue;
        const std::string_view n = cols[i]->name;
        if (n == "queues") row.has_queues = true;
        else if (n == "job_usage" && !trim_space(rec.fields[i]).empty()) row.has_job_usage = true;
      }
    std::string key;
    if constexpr (std::is_same_v<R, UserRecord>)
      key = row.username + "' in bank '" + row.bank;
    else
      key = row.name;
    const auto [it, fresh] = seen.emplace(key, rec.line);
    if (!fresh)
      return fail(where(file, rec.line) + ": " + kind.what + " '" + key + "' already given at line " +
                  std::to_string(it->second));
    rows.push_back(std::move(row));
  }
  *out = std::move(rows);
  return true;
}

}  // namespace

bool split_csv(const std::string& text, const std::string& file, std::vector<CsvRecord>* out,
               std::string* why) {
  std::vector<CsvRecord> recs;
  CsvRecord cur;
  std::string field;
  int line = 1;
  cur.line = 1;
  bool in_quotes = false;
  bool field_was_quoted = false;
  bool record_has_content = false;  // anything on this record yet (for blank lines)
  auto end_field = [&] {
    cur.fields.push_back(std::move(field));
    field.clear();
    field_was_quoted = false;
  };
  auto end_record = [&] {
    if (record_has_content || !cur.fields.empty()) {
      end_field();
      recs.push_back(std::move(cur));
    }
    cur = CsvRecord{};
    field.clear();
    field_was_quoted = false;
    record_has_content = false;
  };
  const size_t n = text.size();
  int quote_line = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < n && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"') {
      if (field_was_quoted || !field.empty()) {
        if (why) *why = where(file, line) + ": stray '\"' inside an unquoted field";
        return false;
      }
      in_quotes = field_was_quoted = record_has_content = true;
      quote_line = line;
    } else if (c == ',') {
      record_has_content = true;
      end_field();
    } else if (c == '\r' && i + 1 < n && text[i + 1] == '\n') {
      // CRLF: the '\n' ends the record
    } else if (c == '\n') {
      end_record();
      ++line;
      cur.line = line;
    } else {
      if (field_was_quoted) {
        if (why) *why = where(file, line) + ": text after a closing '\"'";
        return false;
      }
      field += c;
      record_has_content = true;
    }
  }
  if (in_quotes) {
    if (why) *why = where(file, quote_line) + ": quoted field is not closed";
    return false;
  }
  end_record();
  *out = std::move(recs);
  return true;
}

bool read_banks_csv(const std::string& text, const std::string& file, std::vector<BankRecord>* out,
                    std::string* why) {
  static const Kind<BankRecord> kind{"bank", kBankColumns, std::size(kBankColumns), {"bank"},
                                     {"bank", "parent_bank", "shares"}};
  return read_table(text, file, kind, out, why);
}

bool read_users_csv(const std::string& text, const std::string& file, std::vector<UserRecord>* out,
                    std::string* why) {
  static const Kind<UserRecord> kind{
      "user", kUserColumns, std::size(kUserColumns), {"username", "bank"},
      {"username", "userid", "bank", "shares", "max_running_jobs", "max_active_jobs", "max_nodes", "queues"}};
  return read_table(text, file, kind, out, why);
}

bool read_queues_csv(const std::string& text, const std::string& file, std::vector<QueueRecord>* out,
                     std::string* why) {
  static const Kind<QueueRecord> kind{"queue", kQueueColumns, std::size(kQueueColumns), {"queue"}, {}};
  return read_table(text, file, kind, out, why);
}

bool read_factors_csv(const std::string& text, const std::string& file, std::vector<FactorRecord>* out,
                      std::string* why) {
  static const Kind<FactorRecord> kind{"factor", kFactorColumns, std::size(kFactorColumns), {"factor", "weight"}, {}};
  return read_table(text, file, kind, out, why);
}

bool read_config_csv(const std::string& text, const std::string& file, std::vector<ConfigRecord>* out,
                     std::string* why) {
  static const Kind<ConfigRecord> kind{"config key", kConfigColumns, std::size(kConfigColumns), {"key", "value"}, {}};
  return read_table(text, file, kind, out, why);
}

}  // namespace mfprio::flux
