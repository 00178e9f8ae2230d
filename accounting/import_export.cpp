// import_export.cpp - JSON import/export of the hierarchy and JSONL charge batches.
//
// Import is "validate fully, then write": the file is parsed into typed records
// merged onto a Model of the current store (listed records are added or
// updated, fields a record omits keep their stored values, unlisted records are
// untouched), every record is checked against the merged picture, and only
// then is one AdminChanges handed to Store::apply_admin (one transaction).
// So a full export imported into an empty store reproduces it.
//
// Export prints one record per line and doubles with 17 significant digits so
// that usage round-trips bit for bit.
#include "import_export.hpp"

#include <jansson.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

#include "bounded_read.hpp"
#include "stable_order.hpp"

#include "json_util.hpp"

namespace mfprio::acct {
namespace {

constexpr size_t kDumpFlags = JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII;

// Reads one record's fields with type checks; every error names the record.
class Fields {
 public:
  Fields(json_t* obj, std::string where) : obj_(obj), where_(std::move(where)) {}
  [[noreturn]] void fail(const std::string& msg) const { throw AdminError(where_ + ": " + msg); }
  const std::string& where() const { return where_; }

  void only(std::initializer_list<const char*> keys) const {
    const char* k;
    json_t* v;
    json_object_foreach(obj_, k, v) {
      bool known = false;
      for (const char* ok : keys) known = known || std::string(ok) == k;
      if (!known) fail("unknown key \"" + std::string(k) + "\"");
    }
  }
  json_t* get(const char* key) const { return json_object_get(obj_, key); }
  std::optional<std::string> str(const char* key) const {
    json_t* v = get(key);
    if (!v) return std::nullopt;
    if (!json_is_string(v)) fail("\"" + std::string(key) + "\" must be a string");
    return std::string(json_string_value(v), json_string_length(v));
  }
  std::optional<int64_t> integer(const char* key, int64_t lo, int64_t hi) const {
    json_t* v = get(key);
    if (!v) return std::nullopt;
    if (!json_is_integer(v)) fail("\"" + std::string(key) + "\" must be an integer");
    int64_t n = json_integer_value(v);
    if (n < lo || n > hi)
      fail("\"" + std::string(key) + "\" " + std::to_string(n) + " is outside " +
           std::to_string(lo) + ".." + std::to_string(hi));
    return n;
  }
  std::optional<double> number(const char* key) const {
    json_t* v = get(key);
    if (!v) return std::nullopt;
    if (!json_is_number(v)) fail("\"" + std::string(key) + "\" must be a number");
    double d = json_number_value(v);
    if (!std::isfinite(d) || d < 0) fail("\"" + std::string(key) + "\" must be >= 0");
    return d;
  }
  std::optional<bool> boolean(const char* key) const {
    json_t* v = get(key);
    if (!v) return std::nullopt;
    if (!json_is_boolean(v)) fail("\"" + std::string(key) + "\" must be true or false");
    return json_is_true(v);
  }
  // "shares": a non-negative 32-bit integer or the string "parent".
  void shares(uint32_t& shares, bool& parent) const {
    json_t* v = get("shares");
    if (!v) return;
    if (json_is_string(v)) {
      if (std::string(json_string_value(v)) != "parent")
        fail("\"shares\" must be a number or \"parent\"");
      parent = true;
      return;
    }
    if (json_is_integer(v) && json_integer_value(v) < 0) fail("negative shares");
    parent = false;
    shares = static_cast<uint32_t>(*integer("shares", 0, UINT32_MAX));
  }

 private:
  json_t* obj_;
  std::string where_;
};

std::string record_where(const char* section, size_t i, json_t* obj) {
  std::string w = std::string(section) + "[" + std::to_string(i) + "]";
  json_t* n = json_is_object(obj) ? json_object_get(obj, "name") : nullptr;
  if (json_is_string(n)) w += " (name \"" + std::string(json_string_value(n)) + "\")";
  return w;
}

// Calls fn(Fields) for each object of root[section], checking shape and name.
template <typename Fn>
void each_record(json_t* root, const char* section, Fn fn) {
  json_t* arr = json_object_get(root, section);
  if (!arr) return;
  if (!json_is_array(arr)) throw AdminError(std::string("\"") + section + "\" must be an array");
  size_t i;
  json_t* obj;
  json_array_foreach(arr, i, obj) {
    Fields f(obj, record_where(section, i, obj));
    if (!json_is_object(obj)) f.fail("must be an object");
    auto name = f.str("name");
    if (!name) f.fail("missing \"name\"");
    if (auto p = name_problem(*name); !p.empty()) f.fail(p);
    fn(f, *name);
  }
}

// The plugin adds usage up the tree: a file whose raw usage (or one TRES's
// usage) sums past the largest double would load as inf.  Refused here,
// naming the record whose value makes the sum overflow.
void check_usage_sums(const Model& m, const std::vector<AssocWrite>& listed,
                      const std::map<AssocTuple, std::string>& where) {
  double raw = 0;
  std::map<std::string, double> tres;
  for (const auto& [key, r] : m.assocs) {
    if (where.count(key)) continue;  // the store's own rows first
    raw += r.raw_usage;
    for (const auto& [n, v] : r.tres_usage) tres[n] += v;
  }
  for (const AssocWrite& w : listed) {
    const AssocTuple key{w.rec.user, w.rec.account, w.rec.partition};
    const std::string& at = where.at(key);
    raw += w.rec.raw_usage;
    if (!std::isfinite(raw))
      throw AdminError(at + ": \"raw_usage\" makes the total usage overflow a double");
    for (const auto& [n, v] : w.rec.tres_usage) {
      double& t = tres[n];
      t += v;
      if (!std::isfinite(t))
        throw AdminError(at + ": tres_usage \"" + n + "\" makes the total usage overflow a double");
    }
  }
}

// Maui/Moab fair-share history (priority/maui): "fairshare_usage": [{"kind",
// "name", "windows": [w0, w1, ...]}], w0 the window holding
// "fairshare_as_of" (epoch; default now), each window "fairshare_interval"
// seconds long (default 43200, Maui's FSINTERVAL default).  Rows go to the
// store's windowed usage (family "maui") by their absolute start, so the
// plugin reads them under any FSINTERVAL.  The total defaults to the sum
// over the user records.
void plan_fairshare_usage(json_t* root, AdminChanges* ch) {
  Fields top(root, "top level");
  json_t* arr = top.get("fairshare_usage");
  const int64_t as_of = top.integer("fairshare_as_of", 0, int64_t{1} << 40).value_or(
      static_cast<int64_t>(std::time(nullptr)));
  const int64_t interval = top.integer("fairshare_interval", 1, int64_t{1} << 32).value_or(43200);
  if (!arr) return;
  if (!json_is_array(arr)) top.fail("\"fairshare_usage\" must be an array");
  const int64_t w0 = as_of - ((as_of % interval) + interval) % interval;  // start of the window holding as_of
  std::map<int64_t, double> user_sum;
  bool has_total = false;
  std::set<std::pair<std::string, std::string>> seen;
  size_t i;
  json_t* obj;
  json_array_foreach(arr, i, obj) {
    Fields f(obj, record_where("fairshare_usage", i, obj));
    if (!json_is_object(obj)) f.fail("must be an object");
    f.only({"kind", "name", "windows"});
    const std::string kind = f.str("kind").value_or("");
    static const char* const kKinds[] = {"user", "group", "account", "qos", "class", "total"};
    if (std::find_if(std::begin(kKinds), std::end(kKinds), [&](const char* k) { return kind == k; }) ==
        std::end(kKinds))
      f.fail("\"kind\" must be one of user, group, account, qos, class, total");
    std::string name = f.str("name").value_or("");
    if (kind == "total") {
      if (!name.empty()) f.fail("the total has no \"name\"");
      has_total = true;
    } else if (auto p = name_problem(name); !p.empty()) {
      f.fail(p);
    }
    if (!seen.insert({kind, name}).second) f.fail("duplicate " + kind + " \"" + name + "\"");
    json_t* w = f.get("windows");
    if (!w || !json_is_array(w)) f.fail("\"windows\" must be an array of numbers");
    if (json_array_size(w) > 24) f.fail("more than 24 windows (Maui keeps 24)");
    size_t k;
    json_t* v;
    json_array_foreach(w, k, v) {
      if (!json_is_number(v)) f.fail("windows[" + std::to_string(k) + "] must be a number");
      const double u = json_number_value(v);
      if (!std::isfinite(u) || u < 0 || u > 1e30)
        f.fail("windows[" + std::to_string(k) + "] must be a finite number >= 0");
      const int64_t start = w0 - static_cast<int64_t>(k) * interval;
      ch->windows.push_back(WindowRow{kind, name, start, interval, u});
      if (kind == "user") user_sum[start] += u;
    }
  }
  if (!has_total)
    for (const auto& [start, u] : user_sum) ch->windows.push_back(WindowRow{"total", "", start, interval, u});
  ch->windows_family = "maui";
}

// One import's plan: the model the records are applied to in order, what to
// write, the counts, and the Grid Engine ticket objects the records touch.
struct ImportPlan {
  Model m;
  AdminChanges ch;
  ImportStats st;
  std::map<std::pair<std::string, std::string>, TicketObjectRec> tickets;  // (kind, name)
  std::set<std::pair<std::string, std::string>> tickets_touched;
  std::map<std::string, std::string> seen_usage;  // user -> where
  // users: the users named, each association's first record, default accounts
  std::set<std::string> touched;
  std::map<AssocTuple, std::string> seen_assoc;
  std::map<std::string, std::string> wanted_default;  // user -> account

  explicit ImportPlan(const StoreData& current) : m(current) {
    for (const TicketObjectRec& t : current.ticket_objects) tickets[{t.kind, t.name}] = t;
  }

  void accounts(json_t* root) {
    std::map<std::string, std::string> seen_acct;  // name -> where, for duplicates
    std::vector<std::pair<std::string, std::string>> listed;  // name, where
    each_record(root, "accounts", [&](const Fields& f, const std::string& name) {
      f.only({"name", "parent", "shares", "priority", "description"});
      if (name == "root") f.fail("\"root\" is implicit and cannot be listed");
      auto [it, fresh] = seen_acct.emplace(name, f.where());
      if (!fresh) f.fail("duplicate of " + it->second);
      AccountRec rec;
      auto old = m.accounts.find(name);
      if (old != m.accounts.end()) {
        rec = old->second;
      } else {
        rec.name = name;
        rec.parent = "root";
      }
      if (auto p = f.str("parent")) rec.parent = *p;
      f.shares(rec.shares, rec.shares_parent);
      if (auto p = f.integer("priority", 0, UINT32_MAX)) rec.priority = static_cast<uint32_t>(*p);
      if (auto d = f.str("description")) {
        if (auto p = description_problem(*d); !p.empty()) f.fail(p);
        rec.description = *d;
      }
      m.accounts[name] = rec;
      listed.emplace_back(name, f.where());
      ch.accounts.push_back(rec);
    });
    // Parents are resolved only now: accounts may be listed in any order.
    for (const auto& [name, where] : listed)
      if (auto p = m.parent_problem(name); !p.empty()) throw AdminError(where + ": " + p);
    st.accounts = listed.size();
  }

  // Flux queues (before the users whose "queues" name them).
  void queues(json_t* root) {
    std::map<std::string, std::string> seen_queue;
    each_record(root, "queues", [&](const Fields& f, const std::string& name) {
      f.only({"name", "priority"});
      auto [it, fresh] = seen_queue.emplace(name, f.where());
      if (!fresh) f.fail("duplicate of " + it->second);
      QueueRec q;
      if (auto old = m.queues.find(name); old != m.queues.end()) q = old->second;
      q.name = name;
      if (auto p = f.integer("priority", INT32_MIN, INT32_MAX)) q.priority = *p;
      m.queues[name] = q;
      ch.queues.push_back(q);
      ++st.queues;
    });
  }

  // Grid Engine: functional shares / override tickets of a record.
  void ticket_fields(const Fields& f, const std::string& kind, const std::string& name) {
    if (!f.get("fshare") && !f.get("oticket")) return;
    TicketObjectRec& t = tickets[{kind, name}];
    t.kind = kind;
    t.name = name;
    if (auto v = f.integer("fshare", 0, UINT32_MAX)) t.fshare = static_cast<uint32_t>(*v);
    if (auto v = f.integer("oticket", 0, UINT32_MAX)) t.oticket = static_cast<uint32_t>(*v);
    tickets_touched.insert({kind, name});
  }

  // Grid Engine: a user's usage (cpu, mem, io).
  void usage_fields(const Fields& f, const std::string& name, bool raw_is_cpu) {
    json_t* u = f.get("usage");
    const bool raw = raw_is_cpu && f.get("raw_usage") && !u;
    if (!u && !raw) return;
    auto [it, fresh] = seen_usage.emplace(name, f.where());
    if (!fresh) f.fail("second \"usage\" of this user (already " + it->second + ")");
    ch.windows_family = "gridengine";
    if (raw) {
      ch.windows.push_back(WindowRow{"cpu", name, 0, 0, *f.number("raw_usage")});
      return;
    }
    if (!json_is_object(u)) f.fail("\"usage\" must be an object {\"cpu\", \"mem\", \"io\"}");
    Fields uf(u, f.where() + " usage");
    uf.only({"cpu", "mem", "io"});
    for (const char* k : {"cpu", "mem", "io"})
      if (auto v = uf.number(k)) ch.windows.push_back(WindowRow{k, name, 0, 0, *v});
  }

  // An association's "queues" and "tres_usage"; true when queues were given.
  bool assoc_lists(const Fields& f, UserAssocRec& r) {
    bool set_queues = false;
    if (json_t* qs = f.get("queues")) {
      if (!json_is_array(qs)) f.fail("\"queues\" must be an array of queue names");
      std::vector<std::string> names;
      size_t qi;
      json_t* qv;
      json_array_foreach(qs, qi, qv) {
        if (!json_is_string(qv)) f.fail("\"queues\" must be an array of queue names");
        std::string q = json_string_value(qv);
        if (m.queues.find(q) == m.queues.end()) f.fail("unknown queue \"" + q + "\"");
        if (std::find(names.begin(), names.end(), q) != names.end()) f.fail("queue \"" + q + "\" listed twice");
        names.push_back(std::move(q));
      }
      std::sort(names.begin(), names.end());
      r.queues = std::move(names);
      set_queues = true;
    }
    if (json_t* t = f.get("tres_usage")) {
      if (!json_is_object(t)) f.fail("\"tres_usage\" must be an object");
      r.tres_usage.clear();
      Fields tf(t, f.where() + " tres_usage");
      const char* k;
      json_t* v;
      json_object_foreach(t, k, v) {
        if (auto p = name_problem(k); !p.empty()) tf.fail(p);
        r.tres_usage.emplace_back(k, *tf.number(k));
      }
    }
    return set_queues;
  }

  // One "users" record: the user, and its association when it names an account.
  void user_record(const Fields& f, const std::string& name) {
    f.only({"name", "account", "partition", "shares", "priority", "default", "admin", "raw_usage",
            "usage_time", "tres_usage", "queues", "fshare", "oticket", "usage"});
    touched.insert(name);
    UserRec& u = m.users[name];
    u.name = name;
    if (auto a = f.boolean("admin")) u.admin = *a;
    auto account = f.str("account");
    ticket_fields(f, "user", name);
    if (!account) {
      // A user-only record (an admin without associations, a Grid Engine
      // user's functional shares or usage): updates or creates the user.
      // (raw_usage alone is a Grid Engine user's cpu usage.)
      if (f.get("partition") || f.get("shares") || f.get("priority") || f.get("default") ||
          f.get("usage_time") || f.get("tres_usage") || f.get("queues"))
        f.fail("association fields given without \"account\"");
      usage_fields(f, name, /*raw_is_cpu=*/true);
      return;
    }
    usage_fields(f, name, /*raw_is_cpu=*/false);
    if (m.accounts.find(*account) == m.accounts.end())
      f.fail("unknown account \"" + *account + "\"");
    std::string part = f.str("partition").value_or("");
    if (!part.empty())
      if (auto p = name_problem(part); !p.empty()) f.fail("partition: " + p);
    AssocTuple key{name, *account, part};
    auto [it, fresh] = seen_assoc.emplace(key, f.where());
    if (!fresh) f.fail("duplicate of " + it->second);
    UserAssocRec& r = m.assocs[key];
    r.user = name;
    r.account = *account;
    r.partition = part;
    f.shares(r.shares, r.shares_parent);
    if (auto p = f.integer("priority", 0, UINT32_MAX)) r.priority = static_cast<uint32_t>(*p);
    // usage_time: when raw_usage was measured (the flux family counts it in
    // the half-life bin holding that time; 0 = no time, flux ignores it).
    // Absent: the time of this import when raw_usage > 0 is given, else the
    // stored one.
    const auto raw = f.number("raw_usage");
    if (raw) r.raw_usage = *raw;
    if (auto t = f.integer("usage_time", 0, std::numeric_limits<int64_t>::max()))
      r.usage_time = *t;
    else if (raw)
      r.usage_time = *raw > 0 ? -1 : 0;  // -1: the store writes the time of the write
    const bool set_queues = assoc_lists(f, r);
    if (auto d = f.boolean("default"); d && *d) {
      auto [w, first] = wanted_default.emplace(name, *account);
      if (!first && w->second != *account)
        f.fail("second default account (already \"" + w->second + "\")");
    }
    ch.assocs.push_back(AssocWrite{r, true, set_queues});
  }

  void users(json_t* root) {
    each_record(root, "users", [&](const Fields& f, const std::string& name) { user_record(f, name); });
    check_usage_sums(m, ch.assocs, seen_assoc);
    for (const auto& [user, account] : wanted_default) m.users[user].default_account = account;
    m.finish_users(touched, ch.users);
    st.users = touched.size();
  }

  void qos(json_t* root) {
    std::map<std::string, std::string> seen_qos;
    each_record(root, "qos", [&](const Fields& f, const std::string& name) {
      f.only({"name", "priority", "usage_factor"});
      auto [it, fresh] = seen_qos.emplace(name, f.where());
      if (!fresh) f.fail("duplicate of " + it->second);
      QosRec q;
      if (auto old = m.qos.find(name); old != m.qos.end()) q = old->second;
      q.name = name;
      if (auto p = f.integer("priority", 0, UINT32_MAX)) q.priority = static_cast<uint32_t>(*p);
      if (auto u = f.number("usage_factor")) {
        if (auto prob = usage_factor_problem(*u); !prob.empty()) f.fail(prob);
        q.usage_factor = *u;
      }
      ch.qos.push_back(q);
      ++st.qos;
    });
  }

  void partitions(json_t* root) {
    std::map<std::string, std::string> seen_part;
    std::string default_part;
    each_record(root, "partitions", [&](const Fields& f, const std::string& name) {
      f.only({"name", "priority_job_factor", "tres_billing_weights", "tres", "default"});
      auto [it, fresh] = seen_part.emplace(name, f.where());
      if (!fresh) f.fail("duplicate of " + it->second);
      PartitionRec p;
      if (auto old = m.partitions.find(name); old != m.partitions.end()) p = old->second;
      p.name = name;
      if (auto j = f.integer("priority_job_factor", 0, 65533)) p.job_factor = static_cast<uint32_t>(*j);
      if (auto w = f.str("tres_billing_weights")) p.billing_weights = *w;
      if (auto prob = tres_weights_problem(p.billing_weights); !prob.empty()) f.fail(prob);
      if (auto t = f.str("tres")) p.tres_totals = *t;
      if (auto prob = tres_counts_problem(p.tres_totals); !prob.empty()) f.fail(prob);
      if (auto d = f.boolean("default")) p.is_default = *d;
      if (p.is_default) {
        if (!default_part.empty()) f.fail("second default partition (already \"" + default_part + "\")");
        default_part = name;
      }
      ch.partitions.push_back(p);
      ++st.partitions;
    });
  }

  // Grid Engine projects and departments (fshare, oticket), then every
  // ticket object touched.
  void ticket_sections(json_t* root) {
    for (const char* kind : {"project", "department"}) {
      const std::string section = std::string(kind) + "s";
      std::map<std::string, std::string> seen;
      each_record(root, section.c_str(), [&](const Fields& f, const std::string& name) {
        f.only({"name", "fshare", "oticket"});
        auto [it, fresh] = seen.emplace(name, f.where());
        if (!fresh) f.fail("duplicate of " + it->second);
        TicketObjectRec& t = tickets[{kind, name}];
        t.kind = kind;
        t.name = name;
        ticket_fields(f, kind, name);
        tickets_touched.insert({kind, name});
      });
    }
    for (const auto& key : tickets_touched) ch.ticket_objects.push_back(tickets[key]);
  }
};

AdminChanges plan(const StoreData& current, json_t* root, ImportStats* stats) {
  if (!json_is_object(root)) throw AdminError("the top level must be an object");
  {
    Fields top(root, "top level");
    top.only({"accounts", "users", "qos", "partitions", "queues", "projects", "departments",
              "fairshare_usage", "fairshare_as_of", "fairshare_interval"});
  }
  ImportPlan ip(current);
  ip.accounts(root);
  ip.queues(root);
  ip.users(root);
  ip.qos(root);
  ip.partitions(root);
  plan_fairshare_usage(root, &ip.ch);
  ip.ticket_sections(root);
  // Write the default partition last so that it is the one left flagged.
  mfprio::stable_split(ip.ch.partitions.begin(), ip.ch.partitions.end(),
                       [](const PartitionRec& p) { return !p.is_default; });
  if (stats) *stats = ip.st;
  return std::move(ip.ch);
}

std::string slurp(const std::string& file, const std::string& label) {
  try {
    return read_bounded(file, kImportBounds);
  } catch (const ReadError& e) {
    throw AdminError(label + ": " + e.what());
  }
}

std::string dump(json_t* j) {
  char* s = json_dumps(j, kDumpFlags);
  if (!s) throw std::bad_alloc();
  std::string out(s);
  free(s);
  return out;
}

void add(json_t* obj, const char* key, json_t* value) {
  // json_object_set_new steals `value`, also on failure.
  if (!value || json_object_set_new(obj, key, value) != 0) throw std::bad_alloc();
}

json_t* shares_json(uint32_t shares, bool parent) {
  return parent ? json_string("parent") : json_integer(shares);
}

}  // namespace

AdminChanges plan_import(const StoreData& current, const std::string& text,
                         const std::string& label, ImportStats* stats) {
  json_error_t err;
  JsonPtr root(json_loadb(text.data(), text.size(), JSON_REJECT_DUPLICATES, &err));
  if (!root)
    throw AdminError("import " + label + ":" + std::to_string(err.line) + ":" +
                     std::to_string(err.column) + ": " + err.text);
  try {
    return plan(current, root.get(), stats);
  } catch (const AdminError& e) {
    throw AdminError("import " + label + ": " + e.what());
  }
}

ImportStats import_json_file(Store& store, const std::string& file) {
  std::string text = slurp(file, "import");
  ImportStats st;
  AdminChanges ch = plan_import(store.load(), text, file, &st);
  try {
    store.apply_admin(ch);
  } catch (const StoreError& e) {
    throw AdminError("import " + file + ": " + e.what());
  }
  return st;
}

namespace {

// One JSON array, one record per line, for `section` of the export format.
std::string section_json(const StoreData& d, const std::string& section) {
  std::string out = "[";
  const char* sep = "\n";
  auto emit = [&](json_t* o) {
    out += sep + dump(o);
    sep = ",\n";
  };
  if (section == "accounts") {
    for (const auto& a : d.accounts) {
      if (a.parent.empty()) continue;  // root is implicit
      JsonPtr o(json_object());
      add(o.get(), "name", json_string(a.name.c_str()));
      add(o.get(), "parent", json_string(a.parent.c_str()));
      add(o.get(), "shares", shares_json(a.shares, a.shares_parent));
      if (a.priority) add(o.get(), "priority", json_integer(a.priority));
      if (!a.description.empty()) add(o.get(), "description", json_string(a.description.c_str()));
      emit(o.get());
    }
  } else if (section == "users") {
    std::map<std::string, const UserRec*> users;
    for (const auto& u : d.users) users.emplace(u.name, &u);
    std::set<std::string> with_assoc;
    // Grid Engine fields are the user's: written once, on its first record.
    std::map<std::string, const TicketObjectRec*> user_tickets;
    for (const auto& t : d.ticket_objects)
      if (t.kind == "user") user_tickets.emplace(t.name, &t);
    std::map<std::string, std::vector<const WindowRow*>> ge_usage;
    for (const auto& w : d.gridengine_usage) ge_usage[w.name].push_back(&w);
    std::set<std::string> ge_done;
    auto ge_fields = [&](json_t* o, const std::string& user) {
      if (!ge_done.insert(user).second) return;
      if (auto t = user_tickets.find(user); t != user_tickets.end()) {
        add(o, "fshare", json_integer(t->second->fshare));
        add(o, "oticket", json_integer(t->second->oticket));
      }
      if (auto g = ge_usage.find(user); g != ge_usage.end()) {
        JsonPtr u(json_object());
        for (const WindowRow* w : g->second) add(u.get(), w->kind.c_str(), json_real(w->usage));
        add(o, "usage", u.release());
      }
    };
    for (const auto& r : d.assocs) {
      JsonPtr o(json_object());
      add(o.get(), "name", json_string(r.user.c_str()));
      add(o.get(), "account", json_string(r.account.c_str()));
      if (!r.partition.empty()) add(o.get(), "partition", json_string(r.partition.c_str()));
      add(o.get(), "shares", shares_json(r.shares, r.shares_parent));
      if (r.priority) add(o.get(), "priority", json_integer(r.priority));
      if (r.is_default) add(o.get(), "default", json_true());
      auto u = users.find(r.user);
      // The admin flag is the user's, written once, on its first association.
      if (u != users.end() && u->second->admin && !with_assoc.count(r.user))
        add(o.get(), "admin", json_true());
      with_assoc.insert(r.user);
      add(o.get(), "raw_usage", json_real(r.raw_usage));
      if (r.usage_time > 0 || r.raw_usage > 0) add(o.get(), "usage_time", json_integer(r.usage_time));
      if (!r.queues.empty()) {
        JsonPtr qs(json_array());
        for (const std::string& q : r.queues)
          if (json_array_append_new(qs.get(), json_string(q.c_str())) != 0) throw std::bad_alloc();
        add(o.get(), "queues", qs.release());
      }
      if (!r.tres_usage.empty()) {
        JsonPtr t(json_object());
        for (const auto& [name, v] : r.tres_usage) add(t.get(), name.c_str(), json_real(v));
        add(o.get(), "tres_usage", t.release());
      }
      ge_fields(o.get(), r.user);
      emit(o.get());
    }
    std::set<std::string> rest;  // users without associations (rows or Grid Engine fields only)
    for (const auto& u : d.users)
      if (!with_assoc.count(u.name)) rest.insert(u.name);
    for (const auto& [n, t] : user_tickets)
      if (!with_assoc.count(n)) rest.insert(n);
    for (const auto& [n, g] : ge_usage)
      if (!with_assoc.count(n)) rest.insert(n);
    for (const std::string& n : rest) {
      JsonPtr o(json_object());
      add(o.get(), "name", json_string(n.c_str()));
      auto u = users.find(n);
      add(o.get(), "admin", json_boolean(u != users.end() && u->second->admin));
      ge_fields(o.get(), n);
      emit(o.get());
    }
  } else if (section == "qos") {
    for (const auto& q : d.qos) {
      JsonPtr o(json_object());
      add(o.get(), "name", json_string(q.name.c_str()));
      add(o.get(), "priority", json_integer(q.priority));
      add(o.get(), "usage_factor", json_real(q.usage_factor));
      emit(o.get());
    }
  } else if (section == "queues") {
    for (const auto& q : d.queues) {
      JsonPtr o(json_object());
      add(o.get(), "name", json_string(q.name.c_str()));
      add(o.get(), "priority", json_integer(q.priority));
      emit(o.get());
    }
  } else if (section == "partitions") {
    for (const auto& p : d.partitions) {
      JsonPtr o(json_object());
      add(o.get(), "name", json_string(p.name.c_str()));
      add(o.get(), "priority_job_factor", json_integer(p.job_factor));
      add(o.get(), "tres_billing_weights", json_string(p.billing_weights.c_str()));
      if (!p.tres_totals.empty()) add(o.get(), "tres", json_string(p.tres_totals.c_str()));
      add(o.get(), "default", json_boolean(p.is_default));
      emit(o.get());
    }
  } else if (section == "projects" || section == "departments") {
    const std::string kind = section.substr(0, section.size() - 1);
    for (const auto& t : d.ticket_objects) {
      if (t.kind != kind) continue;
      JsonPtr o(json_object());
      add(o.get(), "name", json_string(t.name.c_str()));
      add(o.get(), "fshare", json_integer(t.fshare));
      add(o.get(), "oticket", json_integer(t.oticket));
      emit(o.get());
    }
  } else {
    throw AdminError("unknown export section \"" + section + "\"");
  }
  return out + (out.size() > 1 ? "\n]" : "]");
}

}  // namespace

std::string export_section_json(const StoreData& d, const std::string& section) {
  return section_json(d, section) + "\n";
}

std::string export_json(const StoreData& d) {
  // Queues come before the users that name them (import reads them first anyway).
  return "{\n\"accounts\": " + section_json(d, "accounts") + ",\n\"queues\": " +
         section_json(d, "queues") + ",\n\"users\": " +
         section_json(d, "users") + ",\n\"qos\": " + section_json(d, "qos") +
         ",\n\"partitions\": " + section_json(d, "partitions") + ",\n\"projects\": " +
         section_json(d, "projects") + ",\n\"departments\": " + section_json(d, "departments") + "\n}\n";
}

std::string tree_json(const StoreData& d) {
  // Each account object gets "users" and "accounts" arrays; stack[i] is the
  // open account object at depth i.
  std::vector<json_t*> stack;
  JsonPtr top;
  for (const TreeRow& r : tree_rows(d)) {
    JsonPtr o(json_object());
    if (r.account) {
      add(o.get(), "name", json_string(r.account->name.c_str()));
      add(o.get(), "shares", shares_json(r.account->shares, r.account->shares_parent));
      add(o.get(), "raw_usage", json_real(r.usage));
      add(o.get(), "users", json_array());
      add(o.get(), "accounts", json_array());
      stack.resize(static_cast<size_t>(r.depth));
      json_t* self = o.get();
      if (stack.empty()) {
        top = std::move(o);
      } else if (json_array_append_new(json_object_get(stack.back(), "accounts"), o.release())) {
        throw std::bad_alloc();
      }
      stack.push_back(self);
    } else {
      add(o.get(), "name", json_string(r.assoc->user.c_str()));
      if (!r.assoc->partition.empty())
        add(o.get(), "partition", json_string(r.assoc->partition.c_str()));
      add(o.get(), "shares", shares_json(r.assoc->shares, r.assoc->shares_parent));
      add(o.get(), "raw_usage", json_real(r.usage));
      json_t* parent = stack.at(static_cast<size_t>(r.depth - 1));
      if (json_array_append_new(json_object_get(parent, "users"), o.release()))
        throw std::bad_alloc();
    }
  }
  if (!top) return "{}\n";
  char* s = json_dumps(top.get(), JSON_INDENT(1) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
  if (!s) throw std::bad_alloc();
  std::string out(s);
  free(s);
  return out + "\n";
}

std::vector<ChargeSpec> read_charges_jsonl(const std::string& file) {
  std::istringstream in(slurp(file, "charge"));
  std::vector<ChargeSpec> out;
  std::string line;
  size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = file + ":" + std::to_string(lineno);
    json_error_t err;
    JsonPtr j(json_loadb(line.data(), line.size(), JSON_REJECT_DUPLICATES, &err));
    if (!j) throw AdminError(where + ":" + std::to_string(err.column) + ": " + err.text);
    if (!json_is_object(j.get())) throw AdminError(where + ": must be an object");
    Fields f(j.get(), where);
    f.only({"job", "user", "account", "partition", "qos", "start", "end", "rate", "cpus", "ended"});
    ChargeSpec c;
    c.where = where;
    auto job = f.integer("job", 0, std::numeric_limits<int64_t>::max());
    auto user = f.str("user");
    auto start = f.integer("start", 0, std::numeric_limits<int64_t>::max());
    auto end = f.integer("end", 0, std::numeric_limits<int64_t>::max());
    if (!job || !user || !start || !end) f.fail("\"job\", \"user\", \"start\" and \"end\" are required");
    c.job = static_cast<uint64_t>(*job);
    c.user = *user;
    c.start = *start;
    c.end = *end;
    c.account = f.str("account").value_or("");
    c.partition = f.str("partition").value_or("");
    c.qos = f.str("qos").value_or("");
    c.rate = f.number("rate");
    c.cpus = f.number("cpus");
    c.ended = f.boolean("ended").value_or(true);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace mfprio::acct
