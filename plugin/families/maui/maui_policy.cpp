// maui_policy.cpp - see maui_policy.hpp.
#include "maui_policy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "params.hpp"
#include "store.hpp"

namespace mfprio::maui {
namespace {

constexpr const char* kFamily = "maui";  // the store's window family (Maui and Moab share it)
const char* const kKindNames[kCredKinds] = {"user", "group", "account", "qos", "class"};

const char* nz(const char* s) { return s ? s : ""; }

// A short column header from a term name: "SERV.QUEUETIME" -> "QUEUETIME".
std::string short_label(const std::string& name) {
  const size_t dot = name.find('.');
  std::string l = dot == std::string::npos ? name : name.substr(dot + 1);
  if (l.size() > MFPRIO_TERM_LABEL_MAX - 1) l.resize(MFPRIO_TERM_LABEL_MAX - 1);
  return l;
}

// kKindNames' index as a CredKind ("user" -> User); kind names not in it: User.
CredKind kind_of(const std::string& kind) {
  for (int k = 0; k < kCredKinds; ++k)
    if (kind == kKindNames[k]) return static_cast<CredKind>(k);
  return CredKind::User;
}

std::string target_text(const FsTarget& t) {
  if (t.value <= 0) return "";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f", t.value);
  std::string s = buf;
  switch (t.mode) {
    case TargetMode::Floor: return s + "+";
    case TargetMode::Ceiling: return s + "-";
    case TargetMode::CapAbsolute: return s + "^";
    case TargetMode::CapRelative: return s + "%";
    default: return s;
  }
}

}  // namespace

void MauiPolicy::configure(const HostContext& host) {
  host_ = &host;
  const ConfPair* pp = nullptr;
  for (const ConfPair& c : host.conf)
    if (iequals(c.key, "PriorityParameters")) pp = &c;
  if (!pp)
    throw ConfigError(std::string(type()) + " needs PriorityParameters=config=PATH (the admin's " +
                      (flavor_ == Flavor::Moab ? "moab.cfg" : "maui.cfg") + ")");
  auto params = priority_parameters(*pp, {"config"}, type());
  auto it = params.find("config");
  if (it == params.end())
    throw ConfigError(pp->file + ":" + std::to_string(pp->line) + ": PriorityParameters: config=PATH is missing");
  std::string path;
  const std::string text = read_parameter_file(*pp, "config", it->second, &path);
  Config cfg;
  std::string why;
  if (!parse_maui_cfg(text, path, flavor_, &cfg, &why)) throw ConfigError(why);
  for (const IgnoredParam& ig : cfg.ignored)
    host.log(MFPRIO_LOG_DEBUG, ig.file + ":" + std::to_string(ig.line) + ": " + ig.name +
                                   " is not a priority parameter: ignored");
  for (const std::string& w : cfg.warnings) host.log(MFPRIO_LOG_WARNING, w);
  cfg_path_ = path;
  totals_.procs = host.cluster.cpus;
  totals_.mem_mb = host.cluster.mem_mb;
  totals_.swap_mb = host.cluster.get("swap");
  totals_.disk_mb = host.cluster.get("disk");
  // The store is optional here: used when AccountingStorageLoc is written or
  // FSPOLICY keeps usage (then the default location applies, conf.hpp).
  if (store_location_given(host.conf) || cfg.fs_policy != FsPolicy::None)
    store_path_ = store_location(host.conf, &store_origin_);
  if (store_path_.empty() && cfg.fs_policy != FsPolicy::None)
    throw ConfigError(path + ": FSPOLICY keeps usage: set AccountingStorageLoc so the windows survive a restart");
  cfg_ = std::make_shared<const Config>(std::move(cfg));
}

std::shared_ptr<MauiState> MauiPolicy::build(std::vector<acct::WindowRow> rows, int64_t as_of, int64_t last_decay,
                                             const MauiState* parent, uint32_t layout_id) const {
  const Config& cfg = *cfg_;
  auto s = std::make_shared<MauiState>();
  s->last_decay = last_decay;
  s->as_of = as_of;
  // Window weights FSDECAY^i for the FSDEPTH windows up to as_of; a row
  // written under another FSINTERVAL counts in the window holding its start.
  const int64_t cur = floor_div(as_of, cfg.fs_interval);
  FsUsage u;
  for (const acct::WindowRow& r : rows) {
    const int64_t age = cur - floor_div(r.start, cfg.fs_interval);
    if (age < 0 || age >= cfg.fs_depth) continue;
    const double w = r.usage * std::pow(cfg.fs_decay, static_cast<double>(age));
    if (r.kind == "total") {
      u.total += w;
      continue;
    }
    for (int k = 0; k < kCredKinds; ++k)
      if (r.kind == kKindNames[k]) u.by_name[k][r.name] += w;
  }
  auto m = std::make_shared<Model>();
  m->cfg = cfg;
  m->totals = totals_;
  m->fs = build_fs_view(cfg, u);
  s->model = std::move(m);
  // The same names as the state before: its handles stay good; new names
  // (append-only): a new layout from the one numbering (next_layout_id).
  s->names = extend_names(parent ? parent->names : nullptr, cfg, u);
  s->layout_id = parent && s->names == parent->names ? parent->layout_id : parent ? next_layout_id() : layout_id;
  build_fast(*s->model, *s->names, s->layout_id, &s->fast);
  s->usage = std::move(u);
  s->rows = std::move(rows);
  std::set<std::string> users;
  for (const auto& [name, e] : s->usage.by_name[0]) users.insert(name);
  s->associations = users.size();
  return s;
}

std::shared_ptr<State> MauiPolicy::load(const StoreView* store, uint32_t layout_id) {
  std::vector<acct::WindowRow> rows;
  int64_t last = 0;
  if (store) {
    rows = store->load_windows(kFamily);
    last = store->decay_state().last_decay;
  }
  const int64_t as_of = std::max(last, host_->now());
  return build(std::move(rows), as_of, last, nullptr, layout_id);
}

Job MauiPolicy::to_maui(const mfprio_job_t& j, int64_t now) const {
  Job m;
  m.job_id = j.job_id;
  m.user = nz(j.user);
  m.group = nz(j.group);
  m.account = nz(j.account);
  m.qos = nz(j.qos);
  m.cls = nz(j.partition);
  m.submit_time = j.submit_time;
  // JOBPRIOACCRUALPOLICY over a stateless record (mfprio-maui(5), DELIBERATE DIFFERENCES).
  const RecordQueue q = record_queue(accrual_rule(*cfg_), j, now);
  m.system_queue_time = q.system_queue_time;
  m.eff_queue_duration = q.eff_queue_duration;
  m.submit_time = q.submit_time;
  m.nodes = j.min_nodes;
  m.procs = j.cpus;
  m.mem_mb = static_cast<double>(j.mem_mb);
  for (uint32_t i = 0; i < j.tres_count; ++i) {
    const std::string n = nz(j.tres[i].name);
    if (n == "swap") m.swap_mb = j.tres[i].count;
    else if (n == "disk") m.disk_mb = j.tres[i].count;
  }
  m.wclimit = static_cast<int64_t>(j.time_limit_min) * 60;
  m.deadline = j.deadline;
  m.bypass = j.bypass_count;
  m.start_count = j.start_count;
  m.user_prio = j.user_priority;
  m.sp_violation = (j.flags & MFPRIO_JOBF_SOFT_VIOLATION) != 0;
  m.running = j.state == MFPRIO_JOB_RUNNING;
  m.elapsed = m.running && j.start_time > 0 ? std::max<int64_t>(0, now - j.start_time) : 0;
  return m;
}

namespace {
// The record's credential slots when its handle is current and in range
// for this state (and the record is whole: the fast path reads the handle
// and the TRES list).
bool fast_slots(const MauiState& s, const mfprio_job_t& job, uint32_t slot[kCredKinds]) {
  return s.fast.usable && job_acceptable(job) && unpack_handle(job.handle, s.fast.layout_id, s.fast.k.lim.data(), slot) &&
         slots_name_record(*s.fast.names, job, slot);
}

uint32_t clamp_of(const Result& r) {
  return r.clamped_high ? MFPRIO_CLAMP_HIGH : r.clamped_low ? MFPRIO_CLAMP_LOW : MFPRIO_CLAMP_NONE;
}
}  // namespace

int MauiPolicy::resolve(const State& state, const mfprio_job_t& job, mfprio_handle_t* h, std::string*) const {
  const MauiState& s = static_cast<const MauiState&>(state);
  *h = mfprio_handle_t{};
  if (!s.names || !s.fast.usable) return MFPRIO_OK;
  const char* const names[kCredKinds] = {job.user, job.group, job.account, job.qos, job.partition};
  uint32_t idx[kCredKinds];
  for (int k = 0; k < kCredKinds; ++k) {
    const char* n = nz(names[k]);
    if (!*n) {
      idx[k] = kNoCred;
      continue;
    }
    idx[k] = s.names->find(k, n);
    if (idx[k] == kNoCred) idx[k] = kUnknownCred;
  }
  mfprio_handle_t packed{};
  if (pack_handle(s.layout_id, idx, &packed)) *h = packed;
  return MFPRIO_OK;
}

void MauiPolicy::price_batch(const State& state, const PassState* pass, const mfprio_job_t* jobs, size_t count,
                             int64_t now, uint32_t* priorities, int* statuses, ClampCounts* clamps,
                             BatchError* err) const {
  const MauiState& s = static_cast<const MauiState&>(state);
  // Records the fast loop cannot take: checked and priced by name.
  SlowRecords ctx{this, &state, pass, jobs, now, priorities, clamps, err};
  const auto slow = &SlowRecords::call;
  if (!s.fast.usable) return Policy::price_batch(state, pass, jobs, count, now, priorities, statuses, clamps, err);
  uint64_t clamped[2] = {0, 0};
  price_fast_batch(*s.model, s.fast, jobs, count, now, priorities, statuses, clamped, slow, &ctx);
  clamps->high += clamped[0];
  clamps->low += clamped[1];
}

int MauiPolicy::price(const State& state, const PassState*, const mfprio_job_t& job, int64_t now, Explain* explain,
                      uint32_t* priority, uint32_t* clamp, std::string*) const {
  const MauiState& s = static_cast<const MauiState&>(state);
  *clamp = MFPRIO_CLAMP_NONE;
  if (job.state == MFPRIO_JOB_HELD) {
    *priority = 0;
    if (explain) explain->total(0, 0, MFPRIO_CLAMP_NONE);
    return MFPRIO_OK;
  }
  uint32_t slot[kCredKinds];
  if (!explain && fast_slots(s, job, slot)) {
    const Result r = price_fast(*s.model, s.fast, job, slot, now);
    *priority = r.priority;
    *clamp = clamp_of(r);
    return MFPRIO_OK;
  }
  const Job m = to_maui(job, now);
  if (!explain) {
    const Result r = maui::price(*s.model, s.fast.k, m, now, nullptr);  // the state's constants
    *priority = r.priority;
    *clamp = r.clamped_high ? MFPRIO_CLAMP_HIGH : r.clamped_low ? MFPRIO_CLAMP_LOW : MFPRIO_CLAMP_NONE;
    return MFPRIO_OK;
  }
  std::vector<Term> terms;
  const Result r = maui::price(*s.model, s.fast.k, m, now, &terms);
  *priority = r.priority;
  *clamp = r.clamped_high ? MFPRIO_CLAMP_HIGH : r.clamped_low ? MFPRIO_CLAMP_LOW : MFPRIO_CLAMP_NONE;
  for (const Term& t : terms) {
    uint32_t flags = t.bound ? MFPRIO_TERMF_CAPPED : 0u;
    if (t.weight == 0) flags |= MFPRIO_TERMF_ZERO_WEIGHT;
    explain->term(t.name.c_str(), short_label(t.name).c_str(), t.factor, t.weight, t.contribution, t.parent, flags);
  }
  explain->resolved(m.account, m.cls, m.qos);
  explain->total(r.total_unclamped, r.priority, *clamp);
  return MFPRIO_OK;
}

// The time a pass's windows are counted back from: the pass, or for job
// ends the newest of the last reading and the host's clock.
int64_t MauiPolicy::reference_time(const MauiState& cur, const UsagePass& pass) const {
  return pass.ended ? std::max(cur.as_of, host_->now()) : pass.now;
}

bool MauiPolicy::plan_pass(const State& state, const UsagePass& pass, UsagePlan* plan) const {
  const MauiState& cur = static_cast<const MauiState&>(state);
  const Config& cfg = *cfg_;
  acct::WindowCycle& c = plan->windows.emplace();
  c.family = kFamily;
  c.window_seconds = cfg.fs_interval;
  // Windows older than the kept history (Maui's 24) can never count again.
  const int64_t t_ref = reference_time(cur, pass);
  if (t_ref > 0) c.drop_before = (floor_div(t_ref, cfg.fs_interval) - kMaxFsDepth + 1) * cfg.fs_interval;
  c.keep_windows = kMaxFsDepth;
  if (!pass.ended) {  // the pass times, never moved backwards (acct::PassClock)
    c.pass = acct::PassClock{};
    c.pass->now = pass.now;
  }
  return true;
}

int MauiPolicy::charge_job(const State&, const mfprio_job_t& j, int64_t until, bool ended, UsagePlan* plan,
                           std::string*) const {
  // FSPOLICY's amount per second to each named credential and the total;
  // credentials are names (no store record), so none can vanish.
  const Job m = to_maui(j, until);
  const double pe = processor_equivalents_flat(m.procs, m.mem_mb, m.swap_mb, m.disk_mb, totals_);
  acct::WindowCharge ch;
  ch.job_id = j.job_id;
  ch.start_time = j.start_time;
  ch.until = until;
  ch.rate = fs_charge_amount(cfg_->fs_policy, m.procs, pe, m.procs, 1.0);
  ch.ended = ended;
  const std::string* names[kCredKinds] = {&m.user, &m.group, &m.account, &m.qos, &m.cls};
  for (int k = 0; k < kCredKinds; ++k)
    if (!names[k]->empty()) ch.credentials.emplace_back(kKindNames[k], *names[k]);
  ch.credentials.emplace_back("total", "");
  plan->windows->charges.push_back(std::move(ch));
  return MFPRIO_OK;
}

std::shared_ptr<State> MauiPolicy::after_pass(const State& state, const UsagePass& pass, const UsagePlan&,
                                              const acct::PassResult& result, const StoreView* store, bool*) {
  const MauiState& cur = static_cast<const MauiState&>(state);
  if (!store) {  // no store: no usage kept (FSPOLICY NONE); a pass moves the view's time
    if (pass.ended) return nullptr;
    return build(cur.rows, pass.now, pass.now, &cur, 0);
  }
  // The view follows the store: read the windows back (one family's rows).
  // The store's pass time (a pass dated before its last one moved nothing).
  const int64_t last = pass.ended ? cur.last_decay : result.windows.pass.state.last_decay;
  return build(store->load_windows(kFamily), reference_time(cur, pass), last, &cur, 0);
}

void MauiPolicy::share_view(const State& state, ShareView* v) const {
  // diagnose -f: per credential its target (with mode), its usage per
  // window (newest first) and the decayed total, as a share of the total.
  const MauiState& s = static_cast<const MauiState&>(state);
  const Config& cfg = *cfg_;
  const int depth = cfg.fs_depth;
  const int64_t cur = floor_div(s.as_of, cfg.fs_interval);
  v->column("credential", "Credential", -1, 16, MFPRIO_COLF_TEXT | MFPRIO_COLF_INDENT | MFPRIO_COLF_LEFT);
  v->column("target", "Target", -1, 9, MFPRIO_COLF_TEXT);
  v->column("usage_percent", "Usage%", 2, 9, 0);
  v->column("fs_delta", "FSFactor", 4, 10, 0);
  v->column("decayed_usage", "Decayed", 1, 14, 0);
  for (int i = 0; i < depth; ++i) {
    char name[32], label[16];
    std::snprintf(name, sizeof name, "window_%d", i);
    std::snprintf(label, sizeof label, "W%d", i);
    v->column(name, label, 1, 12, MFPRIO_COLF_LONG);
  }
  // Per credential: the raw (undecayed) usage of each of the FSDEPTH windows.
  std::map<std::pair<std::string, std::string>, std::vector<double>> windows;
  for (const acct::WindowRow& r : s.rows) {
    const int64_t age = cur - floor_div(r.start, cfg.fs_interval);
    if (age < 0 || age >= depth) continue;
    auto& w = windows[{r.kind, r.name}];
    w.resize(static_cast<size_t>(depth), 0.0);
    w[static_cast<size_t>(age)] += r.usage;
  }
  auto add_row = [&](int32_t parent, uint32_t depth_, const std::string& kind, const std::string& name,
                     const std::string& label, double usage, const FsEntry* e, bool has_delta) {
    ShareView::Row r;
    r.parent = parent;
    r.depth = depth_;
    r.is_user = false;  // every credential row is shown by default (diagnose -f), not only one's own
    r.account = kind == "account" ? name : "";
    r.user.clear();  // (the host's sshare shows only one's own user rows without -a)
    r.cells.push_back(ShareView::text(label));
    // The target in force, before any usage too (diagnose -f lists it).
    const bool cred = kind != "total" && kind.rfind("kind:", 0) != 0;
    r.cells.push_back(ShareView::text(e ? target_text(e->target)
                                        : cred ? target_text(target_in_force(cfg, kind_of(kind), name)) : ""));
    const bool heading = kind.rfind("kind:", 0) == 0;  // USER, GROUP, ... group rows: no numbers
    if (heading) r.cells.push_back(ShareView::text(""));
    else r.cells.push_back(ShareView::num(s.usage.total > 0 ? 100.0 * usage / s.usage.total : 0.0));
    r.cells.push_back(has_delta && e ? ShareView::num(e->delta) : ShareView::text(""));
    if (heading) r.cells.push_back(ShareView::text(""));
    else r.cells.push_back(ShareView::num(usage));
    auto it = windows.find({kind, name});
    for (int i = 0; i < depth; ++i) {
      if (heading) r.cells.push_back(ShareView::text(""));
      else r.cells.push_back(ShareView::num(it == windows.end() ? 0.0 : it->second[static_cast<size_t>(i)]));
    }
    v->rows.push_back(std::move(r));
    return static_cast<int32_t>(v->rows.size() - 1);
  };
  const int32_t top = add_row(-1, 0, "total", "", "TOTAL", s.usage.total, nullptr, false);
  for (int k = 0; k < kCredKinds; ++k) {
    // Every credential with usage or a *CFG line, by name.
    std::set<std::string> names;
    for (const auto& [n, u] : s.usage.by_name[k]) names.insert(n);
    for (const auto& [n, c] : cfg.creds[k]) names.insert(n);
    if (names.empty()) continue;
    std::string heading = cred_kind_param(static_cast<CredKind>(k));  // "USERCFG"
    heading = heading.substr(0, heading.size() - 3);                   // "USER"
    const int32_t group = add_row(top, 1, std::string("kind:") + kKindNames[k], heading, heading, 0, nullptr, false);
    for (const std::string& n : names) {
      auto u = s.usage.by_name[k].find(n);
      const double usage = u == s.usage.by_name[k].end() ? 0.0 : u->second;
      auto e = s.model->fs.entries[k].find(n);
      add_row(group, 2, kKindNames[k], n, n, usage, e == s.model->fs.entries[k].end() ? nullptr : &e->second,
              true);
    }
  }
}

void MauiPolicy::info(const State&, InfoView* v) const {
  const Config& cfg = *cfg_;
  for (int c = 0; c < kComponents; ++c) {
    const ComponentInfo& ci = component_info(static_cast<Component>(c));
    v->weight(ci.term_name, static_cast<double>(cfg.comp_weight[c]));
    v->term(ci.term_name, short_label(ci.term_name));
  }
  for (int s = 0; s < kSubs; ++s) {
    const SubInfo& si = sub_info(static_cast<Sub>(s));
    if (si.moab_only && cfg.flavor == Flavor::Maui) continue;
    v->weight(si.term_name, static_cast<double>(cfg.sub_weight[s]));
  }
  // A sub-term's weight in job_factors is CREDWEIGHT x USERWEIGHT (the
  // component's times the sub-component's): views show it as that product.
  v->set_bool("view.sub_weight_product", true);
  v->set("config", cfg_path_);
  v->set("flavor", std::string(cfg.flavor == Flavor::Moab ? "moab" : "maui"));
  v->set("fs_policy", cfg.fs_policy_name + (cfg.fs_percent ? "%" : ""));
  {
    // diagnose -f's header, for the host's sshare (share_header).
    char b[256];
    const int64_t iv = cfg.fs_interval;
    char span[64];
    if (iv % 86400 == 0) std::snprintf(span, sizeof span, "%lld:00:00:00", static_cast<long long>(iv / 86400));
    else std::snprintf(span, sizeof span, "%02lld:%02lld:%02lld", static_cast<long long>(iv / 3600),
                       static_cast<long long>(iv % 3600 / 60), static_cast<long long>(iv % 60));
    std::snprintf(b, sizeof b,
                  "FairShare Information\n\nDepth: %d intervals   Interval Length: %s   Decay Rate: %.2f\n\n"
                  "FS Policy: %s%s\n",
                  cfg.fs_depth, span, cfg.fs_decay, cfg.fs_policy_name.c_str(), cfg.fs_percent ? "%" : "");
    v->set("share_header", std::string(b));
  }
  v->set_int("fs_interval", cfg.fs_interval);
  v->set_int("fs_depth", cfg.fs_depth);
  v->set("fs_decay", cfg.fs_decay);
  v->set_int("xf_min_wclimit", cfg.xf_min_wclimit);
  v->set("job_prio_accrual_policy", cfg.accrual_name);
  v->set_int("max_priority", 1000000000);
  v->set("enable_neg_job_priority", std::string(cfg.negative_priority ? "TRUE" : "FALSE"));
  if (cfg.negative_priority) v->set_int("priority_offset", kNegOffset);
  v->set("accounting_storage_loc", store_path_);
  // The credentials the file itself configures (*CFG[name] lines, DEFAULT
  // aside), for hosts that check a workload against them (simulate's
  // unused-names warning): a class is the job's partition.
  static const char* const kNamesKey[kCredKinds] = {"conf_names.users", "conf_names.groups",
                                                    "conf_names.accounts", "conf_names.qos",
                                                    "conf_names.partitions"};
  for (int k = 0; k < kCredKinds; ++k) {
    std::vector<std::string> names;
    for (const auto& entry : cfg.creds[k]) names.push_back(entry.first);
    if (names.empty()) continue;
    std::sort(names.begin(), names.end());
    v->set_list(kNamesKey[k], std::move(names));
  }
}

}  // namespace mfprio::maui
