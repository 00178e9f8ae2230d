// import_sge_usage.cpp - see import_sge_usage.hpp.
#include "import_sge_usage.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "acct_cli.hpp"
#include "bounded_read.hpp"

namespace mfprio::acct {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& msg) {
  throw AdminError("import-sge-usage " + where + ": " + msg);
}

std::string at(const std::string& file, size_t line) { return file + ":" + std::to_string(line); }

double number(const std::string& where, const std::string& field, const std::string& v) {
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || errno || !std::isfinite(x) || x < 0)
    fail(where, "field '" + field + "' value '" + v + "': not a number >= 0");
  return x;
}

int64_t seconds(const std::string& where, const std::string& field, const std::string& v) {
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end || errno || x < 0 || x > 253402300799LL)
    fail(where, "field '" + field + "' value '" + v +
                    "': not seconds since the epoch (sge_share_mon without -t prints them)");
  return static_cast<int64_t>(x);
}

std::vector<std::string> split(const std::string& s, char d) {
  std::vector<std::string> out;
  size_t b = 0;
  for (;;) {
    const size_t e = s.find(d, b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) return out;
    b = e + 1;
  }
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// sge_share_mon's fields in their default order (its -f list).
const char* const kShareMonFields[] = {
    "curr_time", "usage_time", "node_name", "user_name", "project_name", "shares", "job_count",
    "level%", "total%", "long_target_share", "short_target_share", "actual_share", "usage",
    "cpu", "mem", "io", "ltcpu", "ltmem", "ltio"};

bool is_share_mon_field(const std::string& f) {
  return std::find_if(std::begin(kShareMonFields), std::end(kShareMonFields),
                      [&](const char* k) { return f == k; }) != std::end(kShareMonFields);
}

// A name=value usage list ("cpu=1.5 mem=2 io=0", commas also accepted;
// NONE = empty): cpu, mem and io, other names passed over.
void usage_list(const std::string& where, const std::string& field, const std::string& text, SgeUsage* u) {
  std::string t = text;
  std::replace(t.begin(), t.end(), ',', ' ');
  std::istringstream in(t);
  std::string item;
  while (in >> item) {
    if (item == "NONE") continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) fail(where, "field '" + field + "': '" + item + "' is not name=value");
    const std::string name = item.substr(0, eq), v = item.substr(eq + 1);
    if (name == "cpu") u->cpu = number(where, field + " cpu", v);
    else if (name == "mem") u->mem = number(where, field + " mem", v);
    else if (name == "io") u->io = number(where, field + " io", v);
  }
}

}  // namespace

std::vector<SgeUsage> read_share_mon(const std::string& text, const std::string& file, bool decayed) {
  std::vector<SgeUsage> out;
  std::vector<std::string> columns(std::begin(kShareMonFields), std::end(kShareMonFields));
  std::istringstream in(text);
  std::string line;
  bool first = true;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    const std::string where = at(file, n);
    std::vector<std::string> cells = split(line, '\t');
    if (first) {
      first = false;
      if (std::all_of(cells.begin(), cells.end(), [](const std::string& c) { return is_share_mon_field(trim(c)); })) {
        columns.clear();
        for (const std::string& c : cells) columns.push_back(trim(c));
        continue;  // -h: the header names the columns
      }
    }
    std::map<std::string, std::string> f;
    const bool named = !cells.empty() && cells[0].find('=') != std::string::npos;
    if (named) {  // -n: name=value
      for (const std::string& c : cells) {
        const size_t eq = c.find('=');
        if (eq == std::string::npos) fail(where, "'" + c + "' is not name=value (sge_share_mon -n)");
        f[c.substr(0, eq)] = c.substr(eq + 1);
      }
    } else {
      if (cells.size() != columns.size())
        fail(where, std::to_string(cells.size()) + " tab-separated fields, expected " +
                        std::to_string(columns.size()) +
                        " (sge_share_mon's default fields, or a header line from -h, or name=value from -n)");
      for (size_t i = 0; i < cells.size(); ++i) f[columns[i]] = cells[i];
    }
    for (const char* need : {"node_name", "user_name", "project_name", "cpu", "mem", "io", "curr_time"})
      if (!f.count(need)) fail(where, std::string("no field '") + need + "'");
    SgeUsage u;
    u.where = where;
    const std::string node = f["node_name"], user = f["user_name"], project = f["project_name"];
    const std::string leaf = node.substr(node.rfind('/') + 1);
    if (!user.empty()) {
      u.scope = project.empty() ? SgeUsage::User : SgeUsage::UserProject;
      u.name = project.empty() ? user : user + ":" + project;
    } else if (!project.empty() && leaf == project) {
      u.scope = SgeUsage::Project;
      u.name = project;
    } else {
      continue;  // an inner node, or a leaf without a user object (default)
    }
    u.cpu = number(where, "cpu", f["cpu"]);
    u.mem = number(where, "mem", f["mem"]);
    u.io = number(where, "io", f["io"]);
    const int64_t now = seconds(where, "curr_time", f["curr_time"]);
    const int64_t stamp = f.count("usage_time") ? seconds(where, "usage_time", f["usage_time"]) : 0;
    u.measured = decayed || stamp == 0 ? now : stamp;
    out.push_back(std::move(u));
  }
  return out;
}

std::vector<SgeUsage> read_spooled_usage(const std::string& text, const std::string& file, bool project) {
  static const char* const kKnown[] = {"name", "oticket", "fshare", "delete_time", "usage", "usage_time_stamp",
                                       "long_term_usage", "project", "default_project", "debited_job_usage",
                                       "acl", "xacl"};
  std::string name, usage_text, project_text;
  size_t name_line = 0, usage_line = 0, project_line = 0;
  int64_t stamp = 0;
  bool has_stamp = false;
  std::istringstream in(text);
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const size_t sp = t.find_first_of(" \t");
    const std::string key = t.substr(0, sp);
    const std::string value = sp == std::string::npos ? "" : trim(t.substr(sp));
    if (std::find_if(std::begin(kKnown), std::end(kKnown), [&](const char* k) { return key == k; }) ==
        std::end(kKnown))
      fail(at(file, n), "'" + key + "' is not a field of a spooled Grid Engine " + (project ? "project" : "user"));
    if (key == "name") name = value, name_line = n;
    else if (key == "usage") usage_text = value, usage_line = n;
    else if (key == "project") project_text = value, project_line = n;
    else if (key == "usage_time_stamp") stamp = seconds(at(file, n), key, value), has_stamp = true;
  }
  if (name.empty()) fail(file, "no 'name' line");
  std::vector<SgeUsage> out;
  auto add = [&](SgeUsage u, size_t line_no) {
    u.where = at(file, line_no);
    if (!(u.cpu == 0 && u.mem == 0 && u.io == 0) && (!has_stamp || stamp == 0))
      fail(u.where, "usage of '" + u.name + "' without a usage_time_stamp");
    u.measured = stamp;
    if (has_stamp && stamp != 0) out.push_back(std::move(u));
  };
  SgeUsage own;
  own.scope = project ? SgeUsage::Project : SgeUsage::User;
  own.name = name;
  usage_list(at(file, usage_line), "usage", usage_text, &own);
  add(own, usage_line ? usage_line : name_line);
  if (!project && !project_text.empty() && project_text != "NONE") {
    // NAME USAGE [LONG_TERM_USAGE];project NAME ...; (the list name repeats from the second record on)
    for (std::string rec : split(project_text, ';')) {
      std::istringstream r(rec);
      std::string word;
      std::vector<std::string> words;
      while (r >> word) words.push_back(word);
      if (!words.empty() && words[0] == "project" && words.size() > 1 && words[1].find('=') == std::string::npos)
        words.erase(words.begin());
      if (words.empty()) continue;
      if (words[0].find('=') != std::string::npos)
        fail(at(file, project_line), "field 'project': a record starts with '" + words[0] + "', not a project name");
      SgeUsage u;
      u.scope = SgeUsage::UserProject;
      u.name = name + ":" + words[0];
      if (words.size() > 1) usage_list(at(file, project_line), "project " + words[0], words[1], &u);
      add(u, project_line);
    }
  }
  return out;
}

SgeUsagePlan plan_sge_usage(const std::vector<SgeUsage>& rows, const gridengine::SchedConf& conf,
                            int64_t store_clock) {
  SgeUsagePlan plan;
  // One value per row: a later measurement wins; two at the same time must agree.
  std::map<std::pair<int, std::string>, const SgeUsage*> last;
  for (const SgeUsage& u : rows) {
    if (auto p = name_problem(u.scope == SgeUsage::UserProject ? u.name.substr(0, u.name.find(':')) : u.name);
        !p.empty())
      fail(u.where, "'" + u.name + "': " + p);
    const SgeUsage*& slot = last[{static_cast<int>(u.scope), u.name}];
    if (!slot || u.measured > slot->measured) {
      slot = &u;
    } else if (u.measured == slot->measured && (u.cpu != slot->cpu || u.mem != slot->mem || u.io != slot->io)) {
      fail(u.where, "usage of '" + u.name + "' differs from " + slot->where + ", measured at the same time");
    }
  }
  plan.clock = store_clock;
  if (store_clock == 0) {
    for (const auto& [key, u] : last) plan.clock = std::max(plan.clock, u->measured);
    plan.set_clock = !last.empty();
  }
  const double c[3] = {gridengine::type_decay_constant(conf, "cpu"), gridengine::type_decay_constant(conf, "mem"),
                       gridengine::type_decay_constant(conf, "io")};
  static const char* const kTypes[3] = {"cpu", "mem", "io"};
  plan.changes.windows_family = "gridengine";
  for (const auto& [key, u] : last) {
    const double v[3] = {u->cpu, u->mem, u->io};
    const char* prefix = u->scope == SgeUsage::User ? "" : u->scope == SgeUsage::Project ? "project_" : "user_project_";
    const double minutes = static_cast<double>(plan.clock - u->measured) / 60.0;
    for (int k = 0; k < 3; ++k) {
      // c^minutes, also for a negative span (measured after the store's clock).
      double f = 1.0;
      if (minutes != 0) f = c[k] <= 0 ? (minutes > 0 ? 0.0 : 1.0) : std::pow(c[k], minutes);
      if (!std::isfinite(f)) fail(u->where, "usage measured too far after the store's last decay to carry back");
      plan.changes.windows.push_back(WindowRow{std::string(prefix) + kTypes[k], u->name, 0, 0, v[k] * f});
    }
    (u->scope == SgeUsage::User ? plan.users : u->scope == SgeUsage::Project ? plan.projects : plan.user_projects)++;
  }
  return plan;
}

SgeUsageOptions sge_usage_options(const std::vector<std::string>& args) {
  SgeUsageOptions u;
  for (size_t k = 0; k < args.size(); ++k) {
    const std::string& f = args[k];
    if (f == "--decayed") {
      u.decayed = true;
      continue;
    }
    if (f != "--share-mon" && f != "--spool" && f != "--sched-conf")
      throw cli::UsageError("import-sge-usage: unknown argument \"" + f + "\"");
    if (k + 1 >= args.size()) throw cli::UsageError("import-sge-usage: " + f + " needs a FILE");
    const std::string& v = args[++k];
    if (f == "--spool") {
      u.spool.push_back(v);
      continue;
    }
    std::string& dst = f == "--share-mon" ? u.share_mon : u.sched_conf;
    if (!dst.empty()) throw cli::UsageError("import-sge-usage: " + f + " given twice");
    dst = v;
  }
  if (u.share_mon.empty() && u.spool.empty())
    throw cli::UsageError("import-sge-usage needs --share-mon FILE or --spool PATH");
  if (u.decayed && u.share_mon.empty()) throw cli::UsageError("import-sge-usage: --decayed goes with --share-mon");
  return u;
}

SgeUsagePlan import_sge_usage(Store& store, const SgeUsageOptions& o) {
  auto read = [](const std::string& path) {
    try {
      return read_bounded(path, kImportBounds);
    } catch (const ReadError& e) {
      throw AdminError(std::string("import-sge-usage: ") + e.what());
    }
  };
  gridengine::SchedConf conf;
  if (!o.sched_conf.empty()) {
    std::string why;
    if (!gridengine::parse_sched_conf(read(o.sched_conf), o.sched_conf, &conf, &why))
      throw AdminError("import-sge-usage " + why);
  }
  std::vector<SgeUsage> rows;
  auto take = [&](std::vector<SgeUsage> more) {
    for (SgeUsage& u : more) rows.push_back(std::move(u));
  };
  if (!o.share_mon.empty()) take(read_share_mon(read(o.share_mon), o.share_mon, o.decayed));
  namespace fs = std::filesystem;
  for (const std::string& p : o.spool) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      size_t found = 0;
      for (const char* sub : {"users", "projects"}) {
        const fs::path dir = fs::path(p) / sub;
        if (!fs::is_directory(dir, ec)) continue;
        std::vector<std::string> files;
        for (const auto& e : fs::directory_iterator(dir, ec))
          if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path().string());
        std::sort(files.begin(), files.end());
        for (const std::string& f : files) take(read_spooled_usage(read(f), f, std::string(sub) == "projects"));
        ++found;
      }
      if (!found) throw AdminError("import-sge-usage: " + p + ": no users/ or projects/ directory in it");
    } else {
      const std::string text = read(p);
      // A lone file: a user has delete_time/default_project, a project acl/xacl.
      const bool user = text.find("\ndefault_project") != std::string::npos ||
                        text.find("\ndelete_time") != std::string::npos;
      const bool proj = text.find("\nacl") != std::string::npos || text.find("\nxacl") != std::string::npos;
      if (user == proj)
        throw AdminError("import-sge-usage: " + p + ": cannot tell a spooled user (default_project, delete_time) " +
                         "from a project (acl, xacl); give the spool directory");
      take(read_spooled_usage(text, p, proj));
    }
  }
  SgeUsagePlan plan = plan_sge_usage(rows, conf, store.decay_state().last_decay);
  // The clock first: were the rows written without it, the first pass would
  // not decay them (a store never decayed takes no decay at its first pass).
  if (plan.set_clock) store.set_decay_state(DecayState{plan.clock, store.decay_state().last_reset});
  store.apply_admin(plan.changes);
  return plan;
}

}  // namespace mfprio::acct
