// ge_policy.cpp - see ge_policy.hpp.
#include "ge_policy.hpp"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <chrono>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

#include "ge_sharemon.hpp"
#include "ge_urgency.hpp"
#include "numbers.hpp"
#include "params.hpp"
#include "store.hpp"
#include "tree_walk.hpp"
#include "strings.hpp"

namespace mfprio::gridengine {
namespace {

constexpr const char* kFamily = "gridengine";  // the store's window family
const char* const kTypes[3] = {"cpu", "mem", "io"};

const char* nz(const char* s) { return s ? s : ""; }

// The same share tree: every node's id, name, type, shares, parent and children.
bool same_tree(const ShareTreeSpec& a, const ShareTreeSpec& b) {
  if (a.nodes.size() != b.nodes.size()) return false;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const ShareTreeNodeSpec &x = a.nodes[i], &y = b.nodes[i];
    if (x.id != y.id || x.name != y.name || x.type != y.type || x.shares != y.shares || x.parent != y.parent ||
        x.children != y.children)
      return false;
  }
  return true;
}


// PriorityParameters items: numbers.hpp's rules for slurm.conf values.
bool parse_u32(const std::string& s, uint32_t* out) {
  uint64_t v = 0;
  if (!parse_u64(s, 0xffffffffull, &v)) return false;
  *out = static_cast<uint32_t>(v);
  return true;
}

bool parse_nonneg(const std::string& s, double* out) {
  double v = 0;
  if (!parse_real(s, &v) || v < 0) return false;
  *out = v;
  return true;
}

// "mpi 4-8", "mpi 2,4-6", "mpi 4-", "mpi 8" -> name and ranges.
bool parse_pe(const std::string& text, PeRequest* pe) {
  const std::string t = trim_space(text);
  const size_t sp = t.find_first_of(" \t");
  if (sp == std::string::npos) return false;
  pe->name = t.substr(0, sp);
  std::string list = trim_space(t.substr(sp));
  std::string item;
  std::istringstream in(list);
  while (std::getline(in, item, ',')) {
    item = trim_space(item);
    SlotRange r;
    const size_t dash = item.find('-');
    if (dash == std::string::npos) {
      if (!parse_u32(item, &r.min)) return false;
      r.max = r.min;
    } else {
      const std::string lo = item.substr(0, dash), hi = item.substr(dash + 1);
      if (lo.empty()) r.min = 1;
      else if (!parse_u32(lo, &r.min)) return false;
      if (hi.empty()) r.max = kInfiniteSlots;
      else if (!parse_u32(hi, &r.max)) return false;
    }
    if (r.min < 1 || r.max < r.min) return false;
    pe->ranges.push_back(r);
  }
  return !pe->ranges.empty();
}

// Handle: generation = the state's layout id, assoc = user id, partition =
// project id, qos = department id (0xffff: by name).  Ids are checked by
// the pass (in range and naming the record's own name) before any use.
constexpr uint16_t kNoShortId = 0xffff;
JobNameIds handle_ids(const GeState& s, const mfprio_job_t& r) {
  JobNameIds x;
  if (s.layout_id == 0 || r.handle.generation != s.layout_id) return x;
  x.user = r.handle.assoc;
  x.project = r.handle.partition == kNoShortId ? kNoName : r.handle.partition;
  x.department = r.handle.qos == kNoShortId ? kNoName : r.handle.qos;
  return x;
}

char* fmt(char (&buf)[32], const char* f, double v) {
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// What one job's explanation needs besides its JobPrice.
struct Detail {
  int64_t now = 0;
  int64_t submit = 0;
  std::optional<int64_t> deadline;
  bool urg_flat = false, tix_flat = false, share_bound = false, dl_bound = false, prio_off = false;
  std::string project, department;
  double override_tickets = 0;  // the job's own (qalter -ot)
  double sum_tckts = 0;         // the pass's ticket total of the job's kind (pending or running)
};

void explain_job(const SchedConf& c, const JobPrice& p, const Detail& d, Explain* ex) {
  const auto flag = [](bool b) { return b ? MFPRIO_TERMF_CAPPED : 0u; };
  const auto zw = [](double w) { return w == 0 ? MFPRIO_TERMF_ZERO_WEIGHT : 0u; };
  const int u = ex->term("urgency", "URGENCY", p.nurg, c.weight_urgency, p.nurg * c.weight_urgency, -1,
                         flag(d.urg_flat) | zw(c.weight_urgency) | MFPRIO_TERMF_DECIMAL);
  ex->term("rrcontr", "RRCONTR", p.rrcontr, 1.0, p.rrcontr, u);
  ex->term("wtcontr", "WTCONTR", static_cast<double>(d.now - d.submit), c.weight_waiting_time, p.wtcontr, u,
           zw(c.weight_waiting_time));
  const double dl_f = d.deadline ? 1.0 / static_cast<double>(std::max<int64_t>(*d.deadline - d.now, 1)) : 0.0;
  ex->term("dlcontr", "DLCONTR", dl_f, c.weight_deadline, p.dlcontr, u, flag(d.dl_bound));
  const int t = ex->term("tickets", "TICKETS", p.ntckts, c.weight_ticket, p.ntckts * c.weight_ticket, -1,
                         flag(d.tix_flat) | zw(c.weight_ticket) | MFPRIO_TERMF_DECIMAL);
  ex->term("stckt", "STCKT", p.stckt, 1.0, p.stckt, t, flag(d.share_bound));
  ex->term("ftckt", "FTCKT", p.ftckt, 1.0, p.ftckt, t);
  ex->term("otckt", "OTCKT", p.otckt, 1.0, p.otckt, t);
  // Labelled POSIX: "PRIORITY" is the host's column of the 32-bit priority.
  ex->term("priority", "POSIX", p.npprior, c.weight_priority, p.npprior * c.weight_priority, -1,
           flag(d.prio_off) | zw(c.weight_priority) | MFPRIO_TERMF_DECIMAL);
  // The qstat columns as values (factor) and text, long format only.
  char b[32];
  const uint32_t info = MFPRIO_TERMF_TEXT | MFPRIO_TERMF_LONG;
  const int at = ex->term("prio", "PRIO", p.prio, 0, 0, -1, info | MFPRIO_TERMF_PRIORITY, 0, fmt(b, "%.5f", p.prio));
  ex->term("nurg", "NURG", p.nurg, 0, 0, -1, info, 0, fmt(b, "%.5f", p.nurg));
  ex->term("urg", "URG", p.urg, 0, 0, -1, info, 0, fmt(b, "%.0f", p.urg));
  ex->term("ntckts", "NTCKTS", p.ntckts, 0, 0, -1, info, 0, fmt(b, "%.5f", p.ntckts));
  // qstat prints tickets truncated ((int) casts): 1342.9 is 1342.
  ex->term("tckts", "TCKTS", p.tckts, 0, 0, -1, info, 0, fmt(b, "%.0f", std::trunc(p.tckts)));
  ex->term("npprior", "NPPRIOR", p.npprior, 0, 0, -1, info, 0, fmt(b, "%.5f", p.npprior));
  ex->term("ppri", "PPRI", p.ppri, 0, 0, -1, info, 0, fmt(b, "%.0f", static_cast<double>(p.ppri)));
  // qstat -ext's and -pri's other job columns, below prio (no generic column):
  // the sge-8.1.9 view layout reads them by name.
  ex->term("slots", "SLOTS", p.slots, 0, 0, at, 0);
  ex->term("ovrts", "OVRTS", d.override_tickets, 0, 0, at, 0);
  ex->term("share", "SHARE", d.sum_tckts > 0 ? p.tckts / d.sum_tckts : 0.0, 0, 0, at, 0);
  ex->term("department", "DEPARTMENT", 0, 0, 0, at, MFPRIO_TERMF_TEXT, 0,
           d.department.empty() ? "defaultdepartment" : d.department.c_str());
  ex->resolved(d.project, "", "");
  ex->total(p.prio, p.priority, MFPRIO_CLAMP_NONE);
}

// What of a job its explanation reads besides its JobPrice.
struct DetailJob {
  int64_t submit = 0;
  std::optional<int64_t> deadline;
  std::string project, department;
  double override_tickets = 0;
  bool running = false;
};

Detail detail_of(const SchedConf& c, const DetailJob& j, const JobTickets& t, double lo, double hi, double max_tix,
                 double sum_pending, double sum_running, int64_t now) {
  Detail d;
  d.now = now;
  d.submit = j.submit;
  d.deadline = j.deadline;
  d.urg_flat = (c.weight_urgency == 0 && !c.report_pjob_tickets) || hi - lo < 1e-5;
  d.tix_flat = !(max_tix > 0);
  d.share_bound = t.share_bound;
  d.dl_bound = j.deadline && *j.deadline - now <= 1;
  d.prio_off = c.weight_priority == 0 && !c.report_pjob_tickets;
  d.project = j.project;
  d.department = j.department;
  d.override_tickets = j.override_tickets;
  d.sum_tckts = j.running ? sum_running : sum_pending;
  return d;
}

}  // namespace

int to_ge_job(const mfprio_job_t& r, const Model& model, Job* out, std::string* why, RequestCache* cache) {
  const auto id = [&r] { return "job " + std::to_string(r.job_id); };  // only on failure
  // Built in place (every field set: *out may be a reused job); on failure
  // *out is left half-built and the callers drop it.
  Job& j = *out;
  j.id = r.job_id;
  j.user.assign(nz(r.user));
  j.project.assign(nz(r.account));
  j.department.clear();
  j.submit_time = r.submit_time;
  j.deadline.reset();
  if (r.deadline > 0) j.deadline = r.deadline;
  j.posix_priority = 0;
  j.job_share = 0;
  j.override_tickets = 0;
  j.pe.reset();
  j.hard_requests.clear();
  j.running = false;
  if (r.user_priority < -1023 || r.user_priority > 1024) {
    *why = id() + ": user_priority " + std::to_string(r.user_priority) + " is outside -1023..1024 (POSIX priority)";
    return MFPRIO_EINVAL;
  }
  j.posix_priority = r.user_priority;
  j.running = r.state == MFPRIO_JOB_RUNNING || r.state == MFPRIO_JOB_SUSPENDED;
  std::string pe_text, us_text, pe_slots_text;
  for (uint32_t i = 0; i < r.attr_count; ++i) {
    const std::string_view name = nz(r.attrs[i].name);
    const char* const value_c = nz(r.attrs[i].value);
    const std::string_view value = value_c;
    const auto bad = [&](const char* what) {
      *why = id() + ": attr '" + std::string(name) + "' = '" + std::string(value) + "': " + what;
      return MFPRIO_EINVAL;
    };
    if (name == "department") {
      j.department = value;
    } else if (name == "job_share") {
      if (!parse_nonneg(std::string(value), &j.job_share)) return bad("not a number >= 0");
    } else if (name == "override_tickets") {
      if (!parse_nonneg(std::string(value), &j.override_tickets)) return bad("not a number >= 0");
    } else if (name == "pe") {
      pe_text = value;
      PeRequest pe;
      if (!parse_pe(pe_text, &pe)) return bad("not 'NAME RANGE[,RANGE...]' (e.g. 'mpi 4-8')");
    } else if (name == "urgency_slots") {
      uint32_t n = 0;
      if (value != "min" && value != "max" && value != "avg" && !(parse_u32(std::string(value), &n) && n > 0))
        return bad("not min, max, avg or a positive integer");
      us_text = value;
    } else if (name == "pe_slots") {
      uint32_t n = 0;
      if (!parse_u32(std::string(value), &n)) return bad("not an unsigned integer");
      pe_slots_text = value;
    } else if (name.substr(0, 9) == "requests.") {
      const Complex* c = model.complexes.find(name.substr(9));
      if (!c) return bad("names no complex of the complexes table");
      if (complex_is_numeric(c->type)) {
        double v = 0;
        if (!(cache && cache->find(c, value, &v))) {
          if (!parse_ge_value(c->type, value, &v))
            return bad((std::string("not a ") + complex_type_name(c->type) + " value").c_str());
          if (!std::isfinite(v)) return bad("not a finite number");
          if (cache) cache->put(c, value, v);
        }
        j.hard_requests[c->name] = RequestValue::num(v);  // parsed once: urgency reads the number
      } else {
        j.hard_requests[c->name] = RequestValue::str(std::string(value));
      }
    }
  }
  if (!pe_text.empty()) {
    PeRequest pe;
    parse_pe(pe_text, &pe);
    if (!us_text.empty()) pe.urgency_slots = us_text;
    if (!pe_slots_text.empty()) parse_u32(pe_slots_text, &pe.pe_slots);
    j.pe = std::move(pe);
  } else if (r.cpus > 1) {
    PeRequest pe;  // slots = cpus: a fixed-count request
    pe.ranges.push_back(SlotRange{r.cpus, r.cpus});
    j.pe = std::move(pe);
  }
  return MFPRIO_OK;
}

void GridEnginePolicy::configure(const HostContext& host) {
  host_ = &host;
  const ConfPair* pp = nullptr;
  for (const ConfPair& c : host.conf)
    if (iequals(c.key, "PriorityParameters")) pp = &c;
  SchedConf conf;
  ComplexTable cx = ComplexTable::builtin();
  std::string sc_path, cx_path;
  if (pp) {
    auto params = priority_parameters(*pp, {"sched_conf", "complexes"}, "priority/gridengine");
    std::string why;
    if (auto it = params.find("sched_conf"); it != params.end()) {
      const std::string text = read_parameter_file(*pp, "sched_conf", it->second, &sc_path);
      if (!parse_sched_conf(text, sc_path, &conf, &why)) throw ConfigError(why);
    }
    if (auto it = params.find("complexes"); it != params.end()) {
      const std::string text = read_parameter_file(*pp, "complexes", it->second, &cx_path);
      if (!parse_complexes(text, cx_path, &cx, &why)) throw ConfigError(why);
    }
  }
  store_path_ = store_location(host.conf, &store_origin_);
  if (store_path_.empty())
    throw ConfigError("priority/gridengine needs AccountingStorageLoc: the share tree, functional shares, "
                      "override tickets and usage live in the store");
  conf_ = std::move(conf);
  complexes_ = std::move(cx);
  static std::atomic<uint64_t> generations{0};
  complexes_gen_ = ++generations;
  sched_conf_path_ = sc_path;
  complexes_path_ = cx_path;
}

std::shared_ptr<GeState> GridEnginePolicy::build(const acct::StoreData& d, const std::vector<acct::WindowRow>& rows,
                                                 uint32_t layout_id, const GeState* prev) const {
  auto m = std::make_shared<Model>();
  m->conf = conf_;
  m->complexes = complexes_;
  std::set<std::string> projects;
  for (const acct::TicketObjectRec& t : d.ticket_objects) {
    TicketObject o{static_cast<double>(t.fshare), static_cast<double>(t.oticket)};
    if (t.kind == "user") m->users[t.name] = o;
    else if (t.kind == "project") {
      m->projects[t.name] = o;
      projects.insert(t.name);
    } else if (t.kind == "department") m->departments[t.name] = o;
  }
  // Share tree: accounts are inner nodes (a project node when a project of
  // that name exists), user associations the user leaves (one per user and
  // account, partitions merged), sub-accounts before users, each by name.
  std::map<std::string, std::vector<std::string>> sub;          // account -> child accounts
  std::map<std::string, std::map<std::string, uint32_t>> users;  // account -> user -> shares
  std::map<std::string, uint32_t> shares;
  for (const acct::AccountRec& a : d.accounts) {
    shares[a.name] = a.shares;
    if (!a.parent.empty()) sub[a.parent].push_back(a.name);
  }
  for (const acct::UserAssocRec& a : d.assocs) users[a.account].emplace(a.user, a.shares);
  ShareTreeSpec tree;
  if (!sub.empty() || !users.empty()) {
    // Depth-first, children in order: emit a node, then its sub-accounts
    // (by name), then its users (after the sub-accounts' subtrees).
    struct Acc {
      std::string name;
      int parent;
      size_t me;  // set on entering
    };
    walk_depth_first(
        Acc{"root", -1, 0},
        [&](const Acc& a) {
          std::vector<Acc> kids;
          if (auto s = sub.find(a.name); s != sub.end())
            for (const std::string& k : s->second) kids.push_back(Acc{k, static_cast<int>(a.me), 0});
          std::sort(kids.begin(), kids.end(), [](const Acc& x, const Acc& y) { return x.name < y.name; });
          return kids;
        },
        [&](Acc& a) {
          ShareTreeNodeSpec n;
          n.id = static_cast<uint32_t>(tree.nodes.size());
          n.name = a.name;
          n.type = projects.count(a.name) ? NodeType::Project : NodeType::User;
          n.shares = shares[a.name];
          n.parent = a.parent;
          a.me = tree.nodes.size();
          if (a.me > d.accounts.size() + d.assocs.size()) throw acct::StoreError("the account tree has a cycle");
          tree.nodes.push_back(n);
          if (a.parent >= 0) tree.nodes[static_cast<size_t>(a.parent)].children.push_back(a.me);
        },
        [&](const Acc& a) {
          auto u = users.find(a.name);
          if (u == users.end()) return;
          for (const auto& [name, sh] : u->second) {
            ShareTreeNodeSpec leaf;
            leaf.id = static_cast<uint32_t>(tree.nodes.size());
            leaf.name = name;
            leaf.type = NodeType::User;
            leaf.shares = sh;
            leaf.parent = static_cast<int>(a.me);
            tree.nodes[a.me].children.push_back(tree.nodes.size());
            tree.nodes.push_back(leaf);
          }
        });
  }
  m->tree = std::move(tree);
  // Decayed usage: one window per (kind, name).
  for (const acct::WindowRow& r : rows) {
    std::string kind = r.kind;
    enum { U, P, UP } scope = U;
    if (kind.rfind("user_project_", 0) == 0) {
      scope = UP;
      kind = kind.substr(13);
    } else if (kind.rfind("project_", 0) == 0) {
      scope = P;
      kind = kind.substr(8);
    }
    Usage* u = nullptr;
    if (scope == U) u = &m->user_usage[r.name];
    else if (scope == P) u = &m->project_usage[r.name];
    else {
      const size_t colon = r.name.find(':');
      if (colon == std::string::npos) continue;
      u = &m->user_project_usage[{r.name.substr(0, colon), r.name.substr(colon + 1)}];
    }
    if (kind == "cpu") u->cpu += r.usage;
    else if (kind == "mem") u->mem += r.usage;
    else if (kind == "io") u->io += r.usage;
  }
  m->own_usage = own_node_usage(*m);  // leaves' and project nodes' usage, once per state
  // The leaves' look-ups, once per state: the last state's when its tree is
  // this one (the index holds names, not pointers into the tree), so what a
  // pass keeps for its jobs' leaves (TreeCache) stays good after a usage pass.
  m->tree_index = prev && prev->model->tree_index && same_tree(prev->model->tree, m->tree)
                      ? prev->model->tree_index
                      : index_share_tree(m->tree);
  m->tree_index_of = &m->tree;
  // Names numbered for job_resolve: users (ticket objects, then the share
  // tree's), projects ("" = none first, ticket objects, then accounts: a job's
  // account is its project), departments ("" first, ticket objects).
  auto names = std::make_shared<NameTables>();
  for (const auto& [name, o] : m->users) names->users.add(name, m->users);
  for (const acct::UserAssocRec& a : d.assocs) names->users.add(a.user, m->users);
  names->projects.add("", m->projects);
  for (const auto& [name, o] : m->projects) names->projects.add(name, m->projects);
  for (const acct::AccountRec& a : d.accounts) names->projects.add(a.name, m->projects);
  names->departments.add("", m->departments);
  for (const auto& [name, o] : m->departments) names->departments.add(name, m->departments);
  auto s = std::make_shared<GeState>();
  // The same names in the same order as the state before: its handles stay
  // good (same layout; the objects are this state's); else a new layout from
  // the one numbering (a load: the runtime's `layout_id`).
  s->layout_id = !prev ? layout_id
                 : prev->model->names && *prev->model->names == *names ? prev->layout_id
                                                                      : next_layout_id();
  // The last state's tables themselves when they are these (names and ticket
  // objects): a pass keeps its jobs' ids, flat records and scan while the
  // tables are the same object, so they stay good after a usage pass.
  if (prev && prev->model->names && prev->model->names->same_objects(*names)) m->names = prev->model->names;
  else m->names = std::move(names);
  s->last_decay = d.decay.last_decay;
  s->associations = d.assocs.size();
  s->model = std::move(m);
  return s;
}

int GridEnginePolicy::resolve(const State& state, const mfprio_job_t& job, mfprio_handle_t* h, std::string*) const {
  const GeState& s = static_cast<const GeState&>(state);
  *h = mfprio_handle_t{};
  const NameTables* t = s.model->names.get();
  if (!t || s.layout_id == 0) return MFPRIO_OK;
  const char* dept = "";
  for (uint32_t i = 0; i < job.attr_count; ++i)
    if (std::strcmp(nz(job.attrs[i].name), "department") == 0) dept = nz(job.attrs[i].value);
  const auto short_id = [](uint32_t id) { return id < kNoShortId ? static_cast<uint16_t>(id) : kNoShortId; };
  h->generation = s.layout_id;
  h->assoc = t->users.find(nz(job.user));
  h->partition = short_id(t->projects.find(nz(job.account)));
  h->qos = short_id(t->departments.find(dept));
  return MFPRIO_OK;
}

std::shared_ptr<State> GridEnginePolicy::load(const StoreView* store, uint32_t layout_id) {
  acct::LoadOptions lo;
  lo.tres_usage = false;
  const acct::StoreData d = store->load(lo);
  return build(d, store->load_windows(kFamily), layout_id);
}

void GridEnginePolicy::PassPool::give_back(GePass* p) {
  std::unique_ptr<GePass> old;  // freed outside the lock
  std::lock_guard<std::mutex> lock(mu);
  old = std::move(spare);
  spare.reset(p);
}

std::shared_ptr<GePass> GridEnginePolicy::reusable_pass() const {
  std::unique_ptr<GePass> p;
  {
    std::lock_guard<std::mutex> lock(pool_->mu);
    p = std::move(pool_->spare);
  }
  if (!p) p = std::make_unique<GePass>();
  // The pool may go before the pass (the policy ends while a host holds it): then it is freed.
  std::weak_ptr<PassPool> pool = pool_;
  return std::shared_ptr<GePass>(p.release(), [pool](GePass* x) {
    if (auto q = pool.lock()) q->give_back(x);
    else delete x;
  });
}

namespace {

// A record's fingerprint: what to_ge_job reads besides the times (cpus,
// user_priority, every attr's name and value text), the user and account
// texts, the handle, and the submit time and deadline (so that a record
// kept in place leaves its TicketJob as it is: add_pass_job).
// 64 bits of multiply-xorshift hashing: records that differ share one only
// by a ~2^-64 chance.  Each text is hashed on its own (no text's hash waits
// for the one before it: the record's texts are hashed side by side), then
// the parts are mixed in order.
uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 31);
}
uint64_t load_tail(const char* s, size_t n) {  // the last 1 - 7 bytes of s[0, n), n < 8
  uint32_t lo = 0, hi = 0;
  if (n >= 4) {
    std::memcpy(&lo, s, 4);
    std::memcpy(&hi, s + n - 4, 4);  // overlapping: n is in the mix
  } else if (n > 0) {
    lo = static_cast<unsigned char>(s[0]) | static_cast<uint32_t>(static_cast<unsigned char>(s[n / 2])) << 8 |
         static_cast<uint32_t>(static_cast<unsigned char>(s[n - 1])) << 16;
  }
  return (static_cast<uint64_t>(hi) << 32) | lo;
}
uint64_t text_hash(const char* s) {
  if (!s) return 0xA5A5A5A5A5A5A5A5ull;
  const size_t n = std::strlen(s);
  uint64_t a = 0xC2B2AE3D27D4EB4Full ^ (static_cast<uint64_t>(n) << 56), w = 0;
  if (n >= 8) {
    for (size_t i = 0; i + 8 <= n; i += 8) {
      std::memcpy(&w, s + i, 8);
      a = (a ^ w) * 0x9E3779B97F4A7C15ull;
    }
    std::memcpy(&w, s + n - 8, 8);  // the last 8 bytes (overlapping: n is in the mix)
  } else {
    w = load_tail(s, n);
  }
  return mix(a, w);
}
}  // namespace

// The attrs' texts' hashes by address, for one pass (TextHashMemo, ge_policy.hpp).
uint64_t TextHashMemo::hash(const char* s) {
  if (!s) return text_hash(s);
  const uintptr_t a = reinterpret_cast<uintptr_t>(s);
  Entry& e = e_[(a ^ (a >> 9)) & (kSize - 1)];
  if (e.text != s) e = Entry{s, text_hash(s)};
  return e.hash;
}

namespace {

uint64_t record_fingerprint(const mfprio_job_t& r, TextHashMemo& memo) {
  uint64_t h = mix(0x243F6A8885A308D3ull, r.cpus);
  h = mix(h, static_cast<uint32_t>(r.user_priority));
  // The names and the handle: a job whose TicketJob is kept keeps its ids.
  h = mix(h, text_hash(r.user));
  h = mix(h, text_hash(r.account));
  h = mix(h, (static_cast<uint64_t>(r.handle.generation) << 32) ^ r.handle.assoc);
  h = mix(h, (static_cast<uint64_t>(r.handle.partition) << 32) ^ r.handle.qos);
  h = mix(h, static_cast<uint64_t>(r.submit_time));
  h = mix(h, static_cast<uint64_t>(r.deadline));
  h = mix(h, r.attr_count);
  for (uint32_t i = 0; i < r.attr_count; ++i) {
    h = mix(h, memo.hash(r.attrs[i].name));
    h = mix(h, memo.hash(r.attrs[i].value));
  }
  return h;
}

// Reads a record's static parts into *st (to_ge_job and static_urgency: the
// one reading of a record); MFPRIO_OK or the error with *why.
int read_static(const mfprio_job_t& r, const Model& m, GePass& p, RecordKey* key, RecordStatic* st,
                std::string* why) {
  Job& j = p.scratch;
  int rc = to_ge_job(r, m, &j, why, &p.requests);
  StaticUrgency su;
  if (rc == MFPRIO_OK && !static_urgency(j, m.complexes, &su, why)) rc = MFPRIO_EINVAL;
  key->valid = rc == MFPRIO_OK;
  if (rc != MFPRIO_OK) return rc;
  key->id = r.job_id;
  st->rrcontr = su.rrcontr;
  st->slots = su.slots;
  st->js = j.job_share;
  st->ot = j.override_tickets;
  st->ppri = j.posix_priority;
  st->dilute = dilute_slots(j);
  key->dept_attr = RecordKey::kNoAttr;
  for (uint32_t i = 0; i < r.attr_count; ++i)
    if (std::strcmp(nz(r.attrs[i].name), "department") == 0) key->dept_attr = i;
  return MFPRIO_OK;
}

// A name's id and view (see GePass::jobs): the handle's id when it names
// `text` in t, else text's id in t, else kNoName and one of the pass's
// extra names.
// a == b, b a C string.
bool same_name(const std::string& a, const char* b) {
  const size_t n = std::strlen(b);
  return n == a.size() && std::memcmp(a.data(), b, n) == 0;
}

uint32_t name_ref(GePass& p, const NameTable* t, uint32_t hid, const char* text, std::string_view* view) {
  if (t) {
    uint32_t k = hid < t->size() && same_name(t->names[hid], text) ? hid : kNoName;
    if (k == kNoName) k = t->find(text);
    if (k != kNoName) {
      *view = t->names[k];
      return k;
    }
  }
  auto it = p.extra_index.find(std::string_view(text));
  if (it == p.extra_index.end()) {
    p.extra_names.emplace_back(text);
    it = p.extra_index.emplace(p.extra_names.back(), static_cast<uint32_t>(p.extra_names.size() - 1)).first;
  }
  *view = p.extra_names[it->second];
  return kNoName;
}

// a = b, written only when it differs: a pass over the queue of the last
// one finds its jobs' lines as they were and leaves them clean.
// (Compared bit for bit: -0.0 is not kept for 0.0.)
template <class T>
void keep(T& a, T b) {
  if (std::memcmp(&a, &b, sizeof a) != 0) a = b;
}
void keep_view(std::string_view& a, std::string_view b) {
  if (a.data() != b.data() || a.size() != b.size()) a = b;
}

// The pass's next job (position p.njobs, over what the pass's last use left
// there): a record whose static parts are *st (null: the job at this place
// in the pass's last use was this record with these parts, its TicketJob
// and PassUrgency hold them already; names_kept: and the state's name
// tables are the ones of that use).  Such a record whose ids were all the
// tables' (key.table_ids) leaves its TicketJob unread: the same record (its
// fingerprint holds the names, handle, submit time and deadline) gives the
// same TicketJob; only its urgency at this pass's time is new.
void add_pass_job(GePass& p, const GeState& s, const mfprio_job_t& r, RecordKey& key, const RecordStatic* st,
                  bool running, bool names_kept) {
  const size_t k = p.njobs++;
  if (k == p.jobs.size()) {
    p.jobs.emplace_back();
    p.urgency.emplace_back();
  }
  PassUrgency& u = p.urgency[k];
  if (!st && names_kept && key.table_ids) {
    u.urg = timed_urgency(StaticUrgency{u.rrcontr, u.slots}, s.model->conf, r.submit_time, u.has_deadline, u.deadline,
                          p.now)
                .urg;
    p.min_urg = std::min(p.min_urg, u.urg);
    p.max_urg = std::max(p.max_urg, u.urg);
    return;
  }
  p.first_read = std::min(p.first_read, k);
  TicketJob& j = p.jobs[k];
  keep(j.id, r.job_id);
  keep(j.submit_time, r.submit_time);
  if (st) {
    keep(j.job_share, st->js);
    keep(j.override_tickets, st->ot);
    keep(j.dilute, st->dilute);
    u.rrcontr = st->rrcontr;
    u.slots = st->slots;
    u.ppri = st->ppri;
  }
  keep(j.running, running);
  // Kept: the same names and handle (the fingerprint) against the same
  // tables give the same ids, whose views point into the tables.
  const bool ids_kept = !st && names_kept && j.user != kNoName && j.project != kNoName && j.department != kNoName;
  if (!ids_kept) {
    const NameTables* t = s.model->names.get();
    const JobNameIds h = handle_ids(s, r);
    std::string_view v;
    keep(j.user, name_ref(p, t ? &t->users : nullptr, h.user, nz(r.user), &v));
    keep_view(j.user_name, v);
    keep(j.project, name_ref(p, t ? &t->projects : nullptr, h.project, nz(r.account), &v));
    keep_view(j.project_name, v);
    const char* dept = key.dept_attr == RecordKey::kNoAttr ? "" : nz(r.attrs[key.dept_attr].value);
    keep(j.department, name_ref(p, t ? &t->departments : nullptr, h.department, dept, &v));
    keep_view(j.department_name, v);
  }
  key.table_ids = j.user != kNoName && j.project != kNoName && j.department != kNoName;
  u.has_deadline = r.deadline > 0;
  u.deadline = u.has_deadline ? r.deadline : 0;
  u.running = running;
  u.urg = timed_urgency(StaticUrgency{u.rrcontr, u.slots}, s.model->conf, r.submit_time, u.has_deadline, u.deadline,
                        p.now)
              .urg;
  p.min_urg = std::min(p.min_urg, u.urg);
  p.max_urg = std::max(p.max_urg, u.urg);
}

// The static parts of record i (of `kept` kept from the pass's last use)
// into kr[i]: the kept ones when the job id and fingerprint match, else
// read (*same_place: kept at i itself).  A record's kept parts are at i + *delta or a few places on
// (records dropped before it since; *delta only grows, and rec[j] for
// j < i + *delta is not read again, so rec[i] is free to take them).
int static_of(const mfprio_job_t& r, const Model& m, GePass& p, KeptRecords& kr, size_t kept, size_t i,
              size_t* delta, bool* same_place, std::string* why) {
  constexpr size_t kLook = 8;
  const uint64_t fp = record_fingerprint(r, p.text_hashes);
  RecordKey& key = kr.keys[i];
  *same_place = false;
  for (size_t d = *delta; d <= *delta + kLook && i + d < kept; ++d) {
    const RecordKey& old = kr.keys[i + d];
    if (old.id != r.job_id) continue;
    *delta = d;
    if (!(old.valid && old.fp == fp)) break;
    if (d != 0) {
      key = old;
      kr.parts[i] = kr.parts[i + d];
    }
    *same_place = d == 0;
    return MFPRIO_OK;
  }
  const int rc = read_static(r, m, p, &key, &kr.parts[i], why);
  key.fp = fp;
  return rc;
}

// Urgency at the pass's time, tickets, normalisation and the 32-bit
// priority of every job of the pass (ge_priority.hpp's formulas).
void price_pass(const Model& m, GePass* pp) {
  GePass& p = *pp;
  const SchedConf& c = m.conf;
  const size_t n = p.jobs.size();
  // URG:sge_do_urgency: min starts at DBL_MAX, max at DBL_MIN (add_pass_job took them).
  const double lo = p.min_urg, hi = p.max_urg;
  if (n == 0) p.min_urg = p.max_urg = 0;
  TicketOptions topt;
  topt.scratch = &p.ticket_scratch;
  topt.job_tickets = false;  // a job's JobTickets: job_tickets(), when it is explained
  // The jobs before the first whose TicketJob was written are the last
  // use's at their places, their ids all the same tables' (add_pass_job).
  topt.kept_jobs = std::min(p.first_read, n);
  compute_tickets(p.jobs.data(), n, m, topt, &p.tickets);
  p.max_tix = p.tickets.max_tix;
  p.sum_tckts_pending = p.sum_tckts_running = 0;
  p.priority.resize(n);
  for (size_t k = 0; k < n; ++k) {
    const double t = p.tickets.tckts[k];
    const PassUrgency& u = p.urgency[k];
    (u.running ? p.sum_tckts_running : p.sum_tckts_pending) += t;
    p.priority[k] = normalize_job(c, lo, hi, p.max_tix, u.urg, t, u.ppri).priority;
  }
}

// Job k of a pass as its JobPrice (the pass's numbers: the same kernels
// at the pass's time and bounds) and what its explanation reads besides.
JobPrice pass_price(const GePass& p, size_t k, DetailJob* d) {
  const SchedConf& c = p.model->conf;
  const TicketJob& j = p.jobs[k];
  const PassUrgency& pu = p.urgency[k];
  const JobTickets t = job_tickets(p.tickets, p.ticket_scratch, k);
  const UrgencyParts u =
      timed_urgency(StaticUrgency{pu.rrcontr, pu.slots}, c, j.submit_time, pu.has_deadline, pu.deadline, p.now);
  const Normalized n = normalize_job(c, p.min_urg, p.max_urg, p.max_tix, u.urg, t.tckts, pu.ppri);
  JobPrice x;
  x.id = j.id;
  x.running = j.running;
  x.prio = n.prio;
  x.nurg = n.nurg;
  x.urg = u.urg;
  x.rrcontr = u.rrcontr;
  x.wtcontr = u.wtcontr;
  x.dlcontr = u.dlcontr;
  x.ntckts = n.ntckts;
  x.tckts = t.tckts;
  x.stckt = t.stckt;
  x.ftckt = t.ftckt;
  x.otckt = t.otckt;
  x.npprior = n.npprior;
  x.ppri = pu.ppri;
  x.slots = pu.slots;
  x.priority = n.priority;
  d->submit = j.submit_time;
  d->deadline.reset();
  if (pu.has_deadline) d->deadline = pu.deadline;
  d->project = j.project_name;
  d->department = j.department_name;
  d->override_tickets = j.override_tickets;
  d->running = j.running;
  return x;
}

}  // namespace

std::shared_ptr<const PassState> GridEnginePolicy::price_queue(const State& state, const mfprio_job_t* pending,
                                                               size_t pending_count, const mfprio_job_t* running,
                                                               size_t running_count, int64_t now,
                                                               uint32_t* priorities, int* statuses,
                                                               ClampCounts*, BatchError* err) const {
  const GeState& s = static_cast<const GeState&>(state);
  const Model& m = *s.model;
  const std::shared_ptr<GePass> pass = reusable_pass();
  GePass& p = *pass;
  p.now = now;
  p.publish_seq = s.publish_seq;
  // The same name tables as the pass's last use (which holds its model: the
  // same pointer is the same tables).
  const bool names_kept = p.model && s.model->names && p.model->names == s.model->names;
  p.model = s.model;
  p.extra_index.clear();
  p.extra_names.clear();
  p.requests.clear();  // keyed by this model's complexes
  p.text_hashes.clear();  // addresses are the texts' only within one call
  const size_t total = pending_count + running_count;
  // The records' kept parts: read again when the complexes changed.
  KeptRecords& rec = p.records;
  KeptRecords& run_rec = p.run_records;
  if (p.complexes_gen != complexes_gen_) {
    rec.keys.clear();
    run_rec.keys.clear();
    p.slots.clear();
    p.last_total = p.last_pending = 0;
    p.complexes_gen = complexes_gen_;
  }
  const size_t kept_pending = std::min(p.last_pending, rec.keys.size());
  const size_t kept_running = std::min(p.last_total - p.last_pending, run_rec.keys.size());
  std::vector<uint32_t>& slot = p.slots;
  for (const auto& [kr, n] : {std::pair<KeptRecords*, size_t>{&rec, pending_count}, {&run_rec, running_count}})
    if (kr->keys.size() < n) {
      kr->keys.resize(n);
      kr->parts.resize(n);
    }
  if (slot.size() < total) slot.resize(total, RecordKey::kLeftOut);
  // While every record so far is the job it was at the same place in this
  // pass's last use and went the same way (same: the index and the records'
  // slots are still right), no index probe; from the first that is not,
  // the index is built from the jobs so far and probed.
  bool same = pending_count == p.last_pending;
  JobIndex& first = p.index;
  p.njobs = 0;  // jobs [0, njobs) are this pass's, written over the last use's
  p.first_read = SIZE_MAX;
  p.jobs.reserve(total);
  p.urgency.reserve(total);
  p.min_urg = DBL_MAX;  // URG:sge_do_urgency's start values
  p.max_urg = DBL_MIN;
  const auto start_index = [&] {
    same = false;
    first.reserve(total);
    for (size_t k = 0; k < p.njobs; ++k) first.insert(p.jobs[k].id, static_cast<uint32_t>(k));
  };
  if (!same) start_index();
  // Records dropped before a record since the pass's last use (its kept
  // parts are that much further on), pending and running.
  size_t delta = 0, run_delta = 0;
  constexpr size_t kAhead = 8;  // records whose names and attrs are fetched ahead (scattered in memory)
  for (size_t i = 0; i < pending_count; ++i) {
    if (i + kAhead < pending_count) {
      const mfprio_job_t& ahead = pending[i + kAhead];
      __builtin_prefetch(ahead.user);
      __builtin_prefetch(ahead.account);
      __builtin_prefetch(ahead.attrs);
    }
    const mfprio_job_t& r = pending[i];
    RecordKey& st = rec.keys[i];
    std::string why;
    priorities[i] = 0;
    // job_acceptable: check_job's rule without a message (check_job names a
    // refused record's fault); the runtime's inline pre-test first (true only
    // where job_acceptable is: a record it doubts gets the exact test).
    const bool quick = fast_record_head_ok(r, /*allow_attrs=*/true) && fast_tres_counts_ok(r);
    int rc = quick || job_acceptable(r) ? MFPRIO_OK : check_job(&r, "prioritize", &why);
    const bool held = rc == MFPRIO_OK && r.state == MFPRIO_JOB_HELD;
    const bool known = same && i < kept_pending && st.id == r.job_id;
    bool same_place = false;
    if (rc == MFPRIO_OK && !held) rc = static_of(r, m, p, rec, kept_pending, i, &delta, &same_place, &why);
    if (statuses) statuses[i] = rc;
    if (rc != MFPRIO_OK || held) {
      if (!(known && held && slot[i] == RecordKey::kHeld) && same) start_index();
      st.id = r.job_id;
      slot[i] = held ? RecordKey::kHeld : RecordKey::kFailed;
      if (rc != MFPRIO_OK) err->note(rc, why);
      continue;
    }
    const uint32_t pos = static_cast<uint32_t>(p.njobs);
    if (!(known && slot[i] <= pos) && same) start_index();
    // One record per partition: the job takes part once, every record gets its priority.
    const uint32_t at = same ? slot[i] : first.insert(r.job_id, pos);
    keep(slot[i], at);
    if (at == pos)
      add_pass_job(p, s, r, st, same && same_place ? nullptr : &rec.parts[i], /*running=*/false, names_kept);
  }
  for (size_t i = 0; i < running_count; ++i) {
    const mfprio_job_t& r = running[i];
    RecordKey& st = run_rec.keys[i];
    uint32_t& sl = slot[pending_count + i];
    const bool known = same && i < kept_running && st.id == r.job_id;
    const uint32_t pos = static_cast<uint32_t>(p.njobs);
    if (!(known && (sl == pos || sl == RecordKey::kLeftOut)) && same) start_index();
    // A job takes part once: a running record of a job already in the pass
    // (given twice, or pending as well) is left out; the first record counts.
    if (same ? sl == RecordKey::kLeftOut : first.find(r.job_id) != JobIndex::kNone) {
      st.id = r.job_id;
      sl = RecordKey::kLeftOut;
      continue;
    }
    std::string why;
    bool same_place = false;
    const int rc = static_of(r, m, p, run_rec, kept_running, i, &run_delta, &same_place, &why);
    st.id = r.job_id;
    if (rc != MFPRIO_OK) {  // a running job we cannot read: left out of the pass, noted
      if (same) start_index();
      sl = RecordKey::kFailed;
      err->note(rc, "prioritize (running): " + why);
      continue;
    }
    sl = pos;
    if (!same) first.insert(r.job_id, pos);
    add_pass_job(p, s, r, st, same && same_place ? nullptr : &run_rec.parts[i], /*running=*/true, names_kept);
  }
  if (same && total != p.last_total) start_index();  // records dropped at the end: their ids go
  p.last_pending = pending_count;
  p.last_total = total;
  p.jobs.resize(p.njobs);  // a longer last use's jobs go
  p.urgency.resize(p.njobs);
  price_pass(m, &p);
  for (size_t i = 0; i < pending_count; ++i)
    if (slot[i] < p.jobs.size()) priorities[i] = p.priority[slot[i]];
  last_pass_.store(pass, std::memory_order_release);
  return pass;
}

int GridEnginePolicy::price(const State& state, const PassState* pass_base, const mfprio_job_t& job, int64_t now,
                            Explain* explain, uint32_t* priority, uint32_t* clamp, std::string* why) const {
  const GeState& s = static_cast<const GeState&>(state);
  const Model& m = *s.model;
  const SchedConf& c = m.conf;
  *clamp = MFPRIO_CLAMP_NONE;
  if (int rc = check_job(&job, "set_priority", why)) return rc;
  if (job.state == MFPRIO_JOB_HELD) {
    *priority = 0;
    if (explain) explain->total(0, 0, MFPRIO_CLAMP_NONE);
    return MFPRIO_OK;
  }
  const GePass* pass = static_cast<const GePass*>(pass_base);
  if (pass) {
    const uint32_t at = pass->index.find(job.job_id);
    if (at != JobIndex::kNone) {  // the pass's numbers, whatever `now`
      *priority = pass->priority[at];
      if (explain) {
        DetailJob dj;
        const JobPrice p = pass_price(*pass, at, &dj);
        const JobTickets t = job_tickets(pass->tickets, pass->ticket_scratch, at);
        explain_job(c, p,
                    detail_of(c, dj, t, pass->min_urg, pass->max_urg, pass->max_tix, pass->sum_tckts_pending,
                              pass->sum_tckts_running, pass->now),
                    explain);
      }
      return MFPRIO_OK;
    }
  }
  // Alone: a one-job pass, normalised with the last pass's bounds if any.
  Job j;
  if (int rc = to_ge_job(job, m, &j, why)) return rc;
  PricingResult r;
  if (!gridengine::price_queue(std::vector<Job>{j}, m, now, &r, why)) return MFPRIO_EINVAL;
  JobPrice p = r.jobs[0];
  double lo = r.min_urg, hi = r.max_urg, max_tix = r.max_tix;
  // share's denominators: the pass's, with this job joining it
  double sum_pending = r.sum_tckts_pending, sum_running = r.sum_tckts_running;
  if (pass) {
    lo = pass->min_urg;
    hi = pass->max_urg;
    max_tix = pass->max_tix;
    sum_pending += pass->sum_tckts_pending;
    sum_running += pass->sum_tckts_running;
    const Normalized n = normalize_job(c, lo, hi, max_tix, p.urg, p.tckts, p.ppri);
    p.nurg = n.nurg;
    p.ntckts = n.ntckts;
    p.prio = n.prio;
    p.priority = n.priority;
  }
  *priority = p.priority;
  if (explain) {
    const DetailJob dj{j.submit_time, j.deadline, j.project, j.department, j.override_tickets, j.running};
    explain_job(c, p, detail_of(c, dj, r.tickets.jobs[0], lo, hi, max_tix, sum_pending, sum_running, now), explain);
  }
  return MFPRIO_OK;
}

bool GridEnginePolicy::plan_pass(const State&, const UsagePass& pass, UsagePlan* plan) const {
  acct::WindowCycle& c = plan->windows.emplace();
  c.family = kFamily;
  c.window_seconds = 0;
  if (!pass.ended) {
    // Grid Engine's decay: a per-minute constant per usage type, over the
    // time since the store's last pass (none before the first pass; the
    // store reads that time inside the pass's transaction, acct::PassClock).
    const double def = decay_constant_per_minute(conf_.halftime * 60.0);
    for (const char* t : kTypes) {
      double k = def;
      for (const HalflifeEntry& e : conf_.halflife_decay_list)
        if (e.name == t) k = decay_constant_per_minute(e.minutes);
      for (const char* prefix : {"", "project_", "user_project_"})
        c.kind_rates.emplace_back(std::string(prefix) + t, acct::DecayRate{k, 60.0});
    }
    c.pass = acct::PassClock{};
    c.pass->now = pass.now;
  }
  return true;
}

int GridEnginePolicy::charge_job(const State&, const mfprio_job_t& j, int64_t until, bool ended, UsagePlan* plan,
                                 std::string*) const {
  // cpu (slots), mem (GB) and io per second to the user, and with a
  // project to the project and the user in it: names, which nothing deletes.
  const std::string user = j.user, project = nz(j.account);
  double io = 0;
  for (uint32_t k = 0; k < j.tres_count; ++k)
    if (std::string(nz(j.tres[k].name)) == "io") io = j.tres[k].count;
  const double rates[3] = {static_cast<double>(std::max<uint32_t>(j.cpus, 1)),
                           static_cast<double>(j.mem_mb) / 1024.0, io};
  acct::WindowCharge ch;
  ch.job_id = j.job_id;
  ch.start_time = j.start_time;
  ch.until = until;
  ch.rate = rates[0];
  ch.ended = ended;
  for (int k = 0; k < 3; ++k) {
    ch.credentials.emplace_back(kTypes[k], user);
    ch.credential_rates.push_back(rates[k]);
    if (!project.empty()) {
      ch.credentials.emplace_back(std::string("project_") + kTypes[k], project);
      ch.credential_rates.push_back(rates[k]);
      ch.credentials.emplace_back(std::string("user_project_") + kTypes[k], user + ":" + project);
      ch.credential_rates.push_back(rates[k]);
    }
  }
  plan->windows->charges.push_back(std::move(ch));
  return MFPRIO_OK;
}

std::shared_ptr<State> GridEnginePolicy::after_pass(const State& state, const UsagePass&, const UsagePlan&,
                                                    const acct::PassResult&, const StoreView* store, bool*) {
  acct::LoadOptions lo;
  lo.tres_usage = false;
  return build(store->load(lo), store->load_windows(kFamily), 0, &static_cast<const GeState&>(state));
}

void GridEnginePolicy::share_view(const State& state, ShareView* v) const {
  const GeState& s = static_cast<const GeState&>(state);
  // The last pass's jobs against this state's tree and usage (no pass yet:
  // no jobs, every node inactive, targets 0).
  std::shared_ptr<const GePass> last = last_pass_.load(std::memory_order_acquire);
  // Names by view alone when the ids are another state's tables'.
  std::vector<TicketJob> jobs;
  if (last) jobs = last->jobs;
  if (last && last->model->names != s.model->names)
    for (TicketJob& j : jobs) j.user = j.project = j.department = kNoName;
  PricingResult r;
  compute_tickets(jobs.data(), jobs.size(), *s.model, TicketOptions{}, &r.tickets);
  r.jobs.resize(jobs.size());
  for (size_t k = 0; k < jobs.size(); ++k) r.jobs[k].stckt = r.tickets.jobs[k].stckt;
  v->column("node", "Node", -1, 20, MFPRIO_COLF_TEXT | MFPRIO_COLF_INDENT | MFPRIO_COLF_LEFT);
  v->column("type", "Type", -1, 7, MFPRIO_COLF_TEXT | MFPRIO_COLF_LONG);
  v->column("shares", "Shares", -1, 8, 0);
  v->column("level_pct", "Level%", 2, 8, 0);
  v->column("total_pct", "Total%", 2, 8, 0);
  v->column("long_target", "LongTarget", 4, 10, 0);
  v->column("short_target", "ShortTarget", 4, 11, 0);
  v->column("actual_usage", "ActualUsage", 4, 11, 0);
  v->column("usage", "Usage", 1, 12, 0);
  v->column("tickets", "Tickets", 0, 9, 0);
  v->column("jobs", "Jobs", -1, 5, MFPRIO_COLF_LONG);
  const std::vector<ShareMonRow> rows = share_monitor_rows(r);
  std::vector<int32_t> last_at_depth;
  for (size_t i = 0; i < rows.size(); ++i) {
    const ShareMonRow& m = rows[i];
    const uint32_t depth = m.depth;
    const std::string& name = m.name;
    const bool leaf = i + 1 == rows.size() || rows[i + 1].depth <= depth;
    ShareView::Row row;
    row.depth = depth;
    row.parent = depth == 0 || last_at_depth.size() < depth ? -1 : last_at_depth[depth - 1];
    row.is_user = leaf && m.type != "project";
    if (row.is_user) row.user = name;
    // account: the nearest inner node (for a leaf, its parent).
    row.account = row.is_user ? (row.parent >= 0 ? v->rows[static_cast<size_t>(row.parent)].account : "") : name;
    row.cells = {ShareView::text(name), ShareView::text(m.type), ShareView::num(m.shares),
                 ShareView::num(m.level_pct), ShareView::num(m.total_pct), ShareView::num(m.long_target),
                 ShareView::num(m.short_target), ShareView::num(m.actual_usage), ShareView::num(m.usage),
                 ShareView::num(m.tickets), ShareView::num(m.jobs)};
    if (last_at_depth.size() <= depth) last_at_depth.resize(depth + 1);
    last_at_depth[depth] = static_cast<int32_t>(v->rows.size());
    v->rows.push_back(std::move(row));
  }
}

void GridEnginePolicy::info(const State&, InfoView* v) const {
  const SchedConf& c = conf_;
  v->weight("urgency", c.weight_urgency);
  v->weight("tickets", c.weight_ticket);
  v->weight("priority", c.weight_priority);
  v->weight("wtcontr", c.weight_waiting_time);
  v->weight("dlcontr", c.weight_deadline);
  v->weight("stckt", c.weight_tickets_share);
  v->weight("ftckt", c.weight_tickets_functional);
  // The column order of the job terms (explain above), for a job-less header.
  v->term("urgency", "URGENCY", MFPRIO_TERMF_DECIMAL);
  v->term("tickets", "TICKETS", MFPRIO_TERMF_DECIMAL);
  v->term("priority", "POSIX", MFPRIO_TERMF_DECIMAL);
  // qstat -pri's columns; prio is the priority a Grid Engine admin reads.
  for (const char* n : {"prio", "nurg", "urg", "ntckts", "tckts", "npprior", "ppri"}) {
    std::string label(n);
    for (char& ch : label) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    v->term(n, label, MFPRIO_TERMF_TEXT | MFPRIO_TERMF_LONG | (label == "PRIO" ? MFPRIO_TERMF_PRIORITY : 0u));
  }
  // The host's "sge-8.1.9" view layout: qstat -pri/-urg/-ext's columns read these terms.
  v->set("view.layout", std::string("sge-8.1.9"));
  static const char* const kColumns[][2] = {
      {"prior", "prio"},    {"nurg", "nurg"},       {"npprior", "npprior"}, {"ntckts", "ntckts"}, {"urg", "urg"},
      {"rrcontr", "rrcontr"}, {"wtcontr", "wtcontr"}, {"dlcontr", "dlcontr"}, {"ppri", "ppri"},     {"tckts", "tckts"},
      {"ovrts", "ovrts"},   {"otckt", "otckt"},     {"ftckt", "ftckt"},     {"stckt", "stckt"},   {"share", "share"},
      {"slots", "slots"},   {"department", "department"}};
  for (const auto& col : kColumns) v->set(std::string("view.terms.") + col[0], std::string(col[1]));
  v->set("sched_conf", sched_conf_path_.empty() ? std::string("(built-in defaults)") : sched_conf_path_);
  v->set("complexes", complexes_path_.empty() ? std::string("(built-in: slots urgency 1000)") : complexes_path_);
  v->set("weight_user", c.weight_user);
  v->set("weight_project", c.weight_project);
  v->set("weight_department", c.weight_department);
  v->set("weight_job", c.weight_job);
  v->set("compensation_factor", c.compensation_factor);
  v->set("halftime_hours", c.halftime);
  std::string hl;
  for (const HalflifeEntry& e : c.halflife_decay_list) {
    char b[64];
    std::snprintf(b, sizeof b, "%s%s=%g", hl.empty() ? "" : ":", e.name.c_str(), e.minutes);
    hl += b;
  }
  v->set("halflife_decay_list", hl.empty() ? std::string("none") : hl);
  char uw[96];
  std::snprintf(uw, sizeof uw, "cpu=%g,mem=%g,io=%g", c.usage_weight_list.cpu, c.usage_weight_list.mem,
                c.usage_weight_list.io);
  v->set("usage_weight_list", std::string(uw));
  v->set_bool("share_override_tickets", c.share_override_tickets);
  v->set_bool("share_functional_shares", c.share_functional_shares);
  v->set_int("max_functional_jobs_to_schedule", c.max_functional_jobs_to_schedule);
  v->set("policy_hierarchy", c.policy_hierarchy.empty() ? std::string("NONE") : c.policy_hierarchy);
  v->set_bool("report_pjob_tickets", c.report_pjob_tickets);
  v->set("priority_mapping",
         std::string("order-preserving IEEE-754 single-precision bits of prio (sign bit flipped for prio >= 0, "
                     "all bits inverted below 0); never clamped"));
  v->set("accounting_storage_loc", store_path_);
}

}  // namespace mfprio::gridengine
