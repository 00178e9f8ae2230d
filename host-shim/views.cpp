// views.cpp - see views.hpp.
#include "views.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <strings.h>

#include "json_util.hpp"

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
  Table(std::vector<Column> cols, bool parsable) : cols_(std::move(cols)), parsable_(parsable) {}

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
        s += '|';
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
  std::string out_;
};

std::string integer(double v) {
  if (!std::isfinite(v)) return fixed(v, 0);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", std::round(v));
  return std::string(buf) == "-0" ? "0" : buf;
}

enum class Col { JobId, Partition, User, Account, Priority, Site, Age, Assoc, FairShare, JobSize, PartPrio, QosName, Qos, Nice, Tres };

std::vector<std::pair<Col, Column>> sprio_columns(bool long_format) {
  if (!long_format)
    return {{Col::JobId, {"JOBID", 15, true}},       {Col::Partition, {"PARTITION", 9, false}},
            {Col::Priority, {"PRIORITY", 10, true}}, {Col::Site, {"SITE", 10, true}},
            {Col::Age, {"AGE", 10, true}},           {Col::Assoc, {"ASSOC", 10, true}},
            {Col::FairShare, {"FAIRSHARE", 10, true}}, {Col::JobSize, {"JOBSIZE", 10, true}},
            {Col::PartPrio, {"PARTITION", 10, true}}, {Col::Qos, {"QOS", 10, true}},
            {Col::Tres, {"TRES", 20, false}}};
  return {{Col::JobId, {"JOBID", 15, true}},       {Col::Partition, {"PARTITION", 9, false}},
          {Col::User, {"USER", 8, true}},          {Col::Account, {"ACCOUNT", 8, true}},
          {Col::Priority, {"PRIORITY", 10, true}}, {Col::Site, {"SITE", 10, true}},
          {Col::Age, {"AGE", 10, true}},           {Col::Assoc, {"ASSOC", 10, true}},
          {Col::FairShare, {"FAIRSHARE", 10, true}}, {Col::JobSize, {"JOBSIZE", 10, true}},
          {Col::PartPrio, {"PARTITION", 10, true}}, {Col::QosName, {"QOSNAME", 10, true}},
          {Col::Qos, {"QOS", 10, true}},           {Col::Nice, {"NICE", 11, true}},
          {Col::Tres, {"TRES", 20, true}}};
}

std::string tres_cell(const mfprio_factors_t& f, bool normalized) {
  std::string s;
  const uint32_t n = f.tres_count < MFPRIO_MAX_TRES_FACTORS ? f.tres_count : MFPRIO_MAX_TRES_FACTORS;
  for (uint32_t i = 0; i < n; ++i) {
    const auto& t = f.tres[i];
    std::string name(t.name, strnlen(t.name, MFPRIO_NAME_MAX));
    if (!s.empty()) s += ',';
    s += name + "=" + (normalized ? fixed(t.factor, 7) : integer(t.weighted));
  }
  return s;
}

std::string sprio_cell(Col c, const SprioRow& r, bool norm) {
  const mfprio_factors_t& f = r.f;
  auto val = [&](double factor, double weighted) { return norm ? fixed(factor, 7) : integer(weighted); };
  switch (c) {
    case Col::JobId: return std::to_string(r.job_id);
    case Col::Partition: return r.partition;
    case Col::User: return r.user;
    case Col::Account: return r.account;
    case Col::Priority: return norm ? fixed(f.priority / 4294967295.0, 7) : std::to_string(f.priority);
    case Col::Site: return std::to_string(f.site);
    case Col::Age: return val(f.age, f.w_age);
    case Col::Assoc: return val(f.assoc, f.w_assoc);
    case Col::FairShare: return val(f.fairshare, f.w_fairshare);
    case Col::JobSize: return val(f.jobsize, f.w_jobsize);
    case Col::PartPrio: return val(f.partition, f.w_partition);
    case Col::QosName: return r.qos;
    case Col::Qos: return val(f.qos, f.w_qos);
    case Col::Nice: return std::to_string(f.nice);
    case Col::Tres: return tres_cell(f, norm);
  }
  return std::string();
}

std::string weight_cell(Col c, const Weights& w) {
  switch (c) {
    case Col::JobId: return "Weights";
    case Col::Age: return integer(w.age);
    case Col::Assoc: return integer(w.assoc);
    case Col::FairShare: return integer(w.fairshare);
    case Col::JobSize: return integer(w.jobsize);
    case Col::PartPrio: return integer(w.partition);
    case Col::Qos: return integer(w.qos);
    case Col::Tres: return w.tres;
    default: return std::string();
  }
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

std::string tres_weights(const json_t* v) {
  if (json_is_string(v)) return json_string_value(v);
  std::string s;
  if (json_is_object(v)) {
    const char* k;
    json_t* x;
    json_object_foreach(const_cast<json_t*>(v), k, x) {
      double d = 0;
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

std::string fixed(double v, int decimals) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string format_sprio(const std::vector<SprioRow>& rows, const SprioOptions& opt, const Weights& w) {
  const auto cols = sprio_columns(opt.long_format);
  std::vector<Column> layout;
  for (const auto& [id, c] : cols) layout.push_back(c);
  Table t(layout, opt.parsable);
  if (opt.header) t.header();
  if (opt.weights) {
    std::vector<std::string> cells;
    for (const auto& [id, c] : cols) cells.push_back(weight_cell(id, w));
    t.row(cells);
  }
  for (const SprioRow& r : rows) {
    std::vector<std::string> cells;
    for (const auto& [id, c] : cols) cells.push_back(sprio_cell(id, r, opt.normalized));
    t.row(cells);
  }
  return t.str();
}

Weights parse_weights(const std::string& info_json) {
  Weights w;
  JsonPtr root(json_loads(info_json.c_str(), 0, nullptr));
  if (!root || !json_is_object(root.get())) return w;
  const json_t* obj = iget(root.get(), "weights");
  static const char* const kPlain[] = {"age", "assoc", "fairshare", "jobsize", "partition", "qos", "tres"};
  static const char* const kConf[] = {"PriorityWeightAge",     "PriorityWeightAssoc", "PriorityWeightFairshare",
                                      "PriorityWeightJobSize", "PriorityWeightPartition", "PriorityWeightQOS",
                                      "PriorityWeightTRES"};
  const char* const* names = kPlain;
  if (!obj || !json_is_object(obj)) {
    obj = root.get();
    names = kConf;
  }
  double* slots[] = {&w.age, &w.assoc, &w.fairshare, &w.jobsize, &w.partition, &w.qos};
  for (size_t i = 0; i < 6; ++i)
    if (const json_t* v = iget(obj, names[i]); v && weight_value(v, slots[i])) w.known = true;
  if (const json_t* v = iget(obj, names[6])) {
    w.tres = tres_weights(v);
    w.known = true;
  }
  return w;
}

std::vector<ShareRow> share_rows_from(const mfprio_share_row_t* rows, size_t count) {
  std::vector<ShareRow> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const mfprio_share_row_t& r = rows[i];
    ShareRow s;
    s.depth = r.depth;
    s.is_user = r.is_user != 0;
    s.is_root = r.parent < 0;
    s.account = r.account ? r.account : "";
    s.user = r.user ? r.user : "";
    s.shares_parent = r.shares_parent != 0;
    s.raw_shares = r.raw_shares;
    s.norm_shares = r.norm_shares;
    s.raw_usage = r.raw_usage;
    s.norm_usage = r.norm_usage;
    s.eff_usage = r.eff_usage;
    s.level_fs = r.level_fs;
    s.fairshare = r.fairshare;
    out.push_back(std::move(s));
  }
  return out;
}

std::string format_sshare(const std::vector<ShareRow>& rows, const SshareOptions& opt) {
  std::vector<Column> cols = {{"Account", 20, false}, {"User", 10, true}, {"RawShares", 10, true},
                              {"NormShares", 11, true}, {"RawUsage", 11, true}};
  if (opt.long_format) cols.push_back({"NormUsage", 11, true});
  cols.push_back({"EffectvUsage", 13, true});
  cols.push_back({"FairShare", 10, true});
  if (opt.long_format) {
    cols.push_back({"LevelFS", 10, true});
    cols.push_back({"GrpTRESMins", 30, true});
    cols.push_back({"TRESRunMins", 30, true});
  }
  Table t(cols, opt.parsable);
  if (opt.header) {
    t.header();
    t.dashes();
  }
  for (const ShareRow& r : rows) {
    std::vector<std::string> c;
    c.push_back(std::string(r.depth, ' ') + r.account);
    c.push_back(r.is_user ? r.user : std::string());
    c.push_back(r.is_root ? std::string() : r.shares_parent ? std::string("parent") : std::to_string(r.raw_shares));
    c.push_back(fixed(r.norm_shares, 6));
    c.push_back(integer(r.raw_usage));
    if (opt.long_format) c.push_back(fixed(r.norm_usage, 6));
    c.push_back(fixed(r.eff_usage, 6));
    c.push_back(r.is_user ? fixed(r.fairshare, 6) : std::string());
    if (opt.long_format) {
      c.push_back(r.is_root ? std::string() : fixed(r.level_fs, 6));
      c.push_back(std::string());  // GrpTRESMins: limits are not part of the ABI
      c.push_back(std::string());  // TRESRunMins: idem
    }
    t.row(c);
  }
  return t.str();
}

}  // namespace mfprio::host
