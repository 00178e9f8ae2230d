// main.cpp - mfprio-host: load the conf, load the priority plugin, run one
// command (sprio, sshare, decay, job-end, info, explain), unload.  replay and
// simulate load their plugins themselves (simulate: one per conf, in turn;
// simulate_cmd.cpp).
//
// Order: parse the command line (usage error: exit 2) -> read the conf and
// the host's keys -> read the job file -> dlopen + checks -> init -> command
// -> fini + dlclose (Plugin's destructor).  Every failure prints one line on
// stderr and exits 1; a bad job line is reported and the other jobs still run,
// with exit status 1 at the end.
//
// ABI v2: only init, fini, set_priority, decay and errmsg are certain; every
// command tests the optional operations it would use and falls back (the
// table in host-shim/README.md): no prioritize -> per-job calls; no
// set_priority_batch -> set_priority per record; no job_factors -> sprio
// shows priorities only; no share_table -> sshare says the family has no
// share view; no job_end(_batch) -> job-end charges nothing.
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "explain.hpp"
#include "conf.hpp"
#include "jobs_json.hpp"
#include "json_util.hpp"
#include "loader.hpp"
#include "loop.hpp"
#include "replay.hpp"
#include "settings.hpp"
#include "simulate_cmd.hpp"
#include "slurm_view.hpp"
#include "swf.hpp"
#include "views.hpp"
#include "layout.hpp"
#include "stable_order.hpp"

#include <timestr.hpp>

#ifndef MFPRIO_VERSION
#define MFPRIO_VERSION "unknown"
#endif

#ifndef MFPRIO_PLUGINDIR
#define MFPRIO_PLUGINDIR "/usr/local/lib/mfprio"
#endif

namespace mfprio::host {
namespace {

constexpr const char* kProg = "mfprio-host";

void error_line(const std::string& msg) { std::fprintf(stderr, "%s: %s\n", kProg, msg.c_str()); }

std::string record_name(const JobRecord& r) {
  std::string s = r.spec->file + ":" + std::to_string(r.spec->line) + ": job " + std::to_string(r.spec->id);
  if (*r.partition) s += " (partition " + std::string(r.partition) + ")";
  return s;
}

// "FILE:LINE: job N[ (partition P)]: <what: >message (STATUS)".  The plugin's
// message usually starts with "job N: " already; that is dropped, not repeated.
std::string record_error(const JobRecord& r, const Plugin& plugin, int rc, const std::string& what = "") {
  std::string m = plugin.last_error();
  const std::string prefix = "job " + std::to_string(r.spec->id) + ": ";
  if (m.compare(0, prefix.size(), prefix) == 0) m.erase(0, prefix.size());
  return record_name(r) + ": " + what + m + " (" + status_name(rc) + ")";
}

// What the plugin resolved a name to, when the job record left it empty.
std::string resolved(const std::string& given, const char (&name)[MFPRIO_NAME_MAX]) {
  if (!given.empty()) return given;
  return std::string(name, strnlen(name, MFPRIO_NAME_MAX));
}

bool user_selected(const std::vector<std::string>& users, const std::string& u) {
  return users.empty() || std::find(users.begin(), users.end(), u) != users.end();
}

// Reads the job file; bad lines are printed and counted in *failures.
JobFile load_jobs(const std::string& path, int* failures) {
  JobFile jf = read_job_file(path);
  for (const std::string& e : jf.errors) error_line(e);
  *failures += static_cast<int>(jf.errors.size());
  return jf;
}

// job_resolve when the plugin has it (optional: handles only save look-ups).
int resolve(const Plugin& plugin, mfprio_job_t* job) {
  return plugin.ops().job_resolve ? plugin.ops().job_resolve(job) : MFPRIO_OK;
}

// Priorities for `jobs` through whichever operation the plugin provides:
// set_priority_batch, else set_priority one by one.  statuses[i] per job.
void price(const Plugin& plugin, const std::vector<mfprio_job_t>& jobs, int64_t now, std::vector<uint32_t>* prios,
           std::vector<int>* statuses) {
  const mfprio_ops_t& ops = plugin.ops();
  prios->assign(jobs.size(), 0);
  statuses->assign(jobs.size(), MFPRIO_OK);
  if (jobs.empty()) return;
  if (ops.set_priority_batch) {
    ops.set_priority_batch(jobs.data(), jobs.size(), now, prios->data(), statuses->data());
    return;
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    (*statuses)[i] = ops.set_priority(&jobs[i], now, &(*prios)[i]);
    if ((*statuses)[i] != MFPRIO_OK) (*prios)[i] = 0;
  }
}

// Writes "<plugin type> has no <what>" once per process on stderr.
void note_missing(const Plugin& plugin, const std::string& what) {
  error_line("note: " + plugin.type() + " provides no " + what);
}

// Slurm's sprio lists pending jobs only, and of those not the held ones
// (priority 0) nor those not yet eligible (a begin time in the future, or
// none yet: "eligible": 0 given, or a dependency).
bool sprio_lists(const JobSpec& s, int64_t now) {
  if (s.state != MFPRIO_JOB_PENDING || s.dependent) return false;
  if (s.eligible_given && s.eligible == 0) return false;
  return s.eligible <= now;
}


// What sprio works on: the job file's records, which of them are shown
// (`order`, in submission order), which resolved and priced.
struct SprioQueue {
  JobFile jf;
  std::vector<JobRecord> records;
  std::vector<size_t> order;
  std::vector<bool> shown, ok;
  std::vector<uint32_t> queue_prio;  // prioritize's answer per record
  std::vector<int> queue_status;
  int failures = 0;

  // The plugin sees jobs in submission order (ties: job id), as a controller
  // creates them: priority/basic's FIFO numbering depends on it.
  bool by_submit(size_t a, size_t b) const { return submitted_before(*records[a].spec, *records[b].spec); }
};

// Which records to show.  By default only what Slurm's sprio lists:
// pending, eligible by now, not held (sprio_lists); then -u -A -j -p.
void select_records(const Options& o, int64_t now, SprioQueue* q) {
  if (!o.jobs_file.empty()) q->jf = load_jobs(o.jobs_file, &q->failures);
  q->records = expand_records(q->jf.jobs);
  const std::vector<JobRecord>& records = q->records;
  q->shown.assign(records.size(), false);
  q->ok.assign(records.size(), false);
  for (size_t i = 0; i < records.size(); ++i) {
    const JobSpec& s = *records[i].spec;
    if (!o.all_states && !sprio_lists(s, now)) continue;
    if (!user_selected(o.users, s.user)) continue;
    if (!o.accounts_filter.empty() && !user_selected(o.accounts_filter, s.account)) continue;
    if (!o.job_ids.empty() && std::find(o.job_ids.begin(), o.job_ids.end(), s.id) == o.job_ids.end()) continue;
    if (!o.partitions.empty() && *records[i].partition && !user_selected(o.partitions, records[i].partition))
      continue;
    q->order.push_back(i);
    q->shown[i] = true;
  }
  mfprio::stable_order(q->order.begin(), q->order.end(), [&](size_t a, size_t b) { return q->by_submit(a, b); });
}

// Resolves each shown record once; one that does not resolve is reported and left out.
void resolve_shown(Plugin& plugin, SprioQueue* q) {
  for (size_t i : q->order) {
    JobRecord& r = q->records[i];
    const int rc = resolve(plugin, &r.job);
    if (rc != MFPRIO_OK) {
      error_line(record_error(r, plugin, rc));
      ++q->failures;
      continue;
    }
    q->ok[i] = true;
  }
}

// A whole-queue family prices the queue first: every pending or held
// record (also those -u hides; only shown records are resolved, the others
// keep a zero handle and are looked up by name) with the running records.
// Its per-record failures are reported later by the per-job calls.
void price_queue(Plugin& plugin, int64_t now, SprioQueue* q) {
  const mfprio_ops_t& ops = plugin.ops();
  q->queue_prio.assign(q->records.size(), 0);
  q->queue_status.assign(q->records.size(), MFPRIO_ESTATE);
  if (!ops.prioritize) return;
  std::vector<size_t> pend_idx;
  std::vector<mfprio_job_t> pend, run;
  std::vector<size_t> all(q->records.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  mfprio::stable_order(all.begin(), all.end(), [&](size_t a, size_t b) { return q->by_submit(a, b); });
  for (size_t i : all) {
    const uint32_t st = q->records[i].spec->state;
    if (q->shown[i] && !q->ok[i]) continue;
    if (st == MFPRIO_JOB_RUNNING) {
      run.push_back(q->records[i].job);
    } else if (st == MFPRIO_JOB_PENDING || st == MFPRIO_JOB_HELD) {
      pend_idx.push_back(i);
      pend.push_back(q->records[i].job);
    }
  }
  std::vector<uint32_t> prios(pend.size(), 0);
  std::vector<int> statuses(pend.size(), MFPRIO_OK);
  const int rc = ops.prioritize(pend.empty() ? nullptr : pend.data(), pend.size(), run.empty() ? nullptr : run.data(),
                                run.size(), now, prios.data(), statuses.data());
  bool per_record = false;
  for (size_t k = 0; k < pend.size(); ++k) {
    q->queue_prio[pend_idx[k]] = prios[k];
    q->queue_status[pend_idx[k]] = statuses[k];
    per_record = per_record || statuses[k] != MFPRIO_OK;
  }
  if (rc != MFPRIO_OK && !per_record) {  // the call itself failed (a running record, the state)
    error_line("prioritize: " + plugin.last_error() + " (" + status_name(rc) + ")");
    ++q->failures;
  }
}

// Priorities without a breakdown (no job_factors): prioritize's, else
// set_priority_batch / set_priority over the shown records.
void plain_priorities(const Options& o, Plugin& plugin, int64_t now, const SprioQueue& q, std::vector<uint32_t>* prio,
                      std::vector<int>* status) {
  const mfprio_ops_t& ops = plugin.ops();
  prio->assign(q.records.size(), 0);
  status->assign(q.records.size(), MFPRIO_OK);
  std::vector<size_t> idx;
  std::vector<mfprio_job_t> jobs;
  for (size_t i : q.order)
    if (q.ok[i] && !(ops.prioritize && q.queue_status[i] == MFPRIO_OK)) {
      idx.push_back(i);
      jobs.push_back(q.records[i].job);
    }
  std::vector<uint32_t> prios;
  std::vector<int> statuses;
  price(plugin, jobs, now, &prios, &statuses);
  for (size_t k = 0; k < idx.size(); ++k) {
    (*prio)[idx[k]] = prios[k];
    (*status)[idx[k]] = statuses[k];
  }
  for (size_t i : q.order)
    if (q.ok[i] && ops.prioritize && q.queue_status[i] == MFPRIO_OK) (*prio)[i] = q.queue_prio[i];
  note_missing(plugin, o.json ? "job_factors_json: sprio --json shows each record's priority only"
                              : "job_factors: sprio shows JOBID PARTITION PRIORITY only");
}

// job_factors_json of one record, completed with its identity; false (reported) on failure.
bool factors_json(Plugin& plugin, JobRecord& r, int64_t now, JsonPtr* out) {
  char* raw = nullptr;
  const int rc = plugin.ops().job_factors_json(&r.job, now, &raw);
  Plugin::PluginString text = plugin.adopt(raw);
  if (rc != MFPRIO_OK) {
    error_line(record_error(r, plugin, rc));
    return false;
  }
  json_error_t err;
  JsonPtr obj(text ? json_loads(text.get(), 0, &err) : nullptr);
  if (!obj) {
    error_line(record_name(r) + ": plugin returned invalid JSON from job_factors_json");
    return false;
  }
  if (json_is_object(obj.get())) {  // make each element self-describing
    auto add = [&](const char* k, json_t* v) {
      if (!json_object_get(obj.get(), k)) json_object_set_new(obj.get(), k, v);
      else json_decref(v);
    };
    add("job_id", json_integer(static_cast<json_int_t>(r.spec->id)));
    add("partition", json_string(r.partition));
    add("user", json_string(r.spec->user.c_str()));
    add("account", json_string(r.spec->account.c_str()));
    add("qos", json_string(r.spec->qos.c_str()));
  }
  *out = std::move(obj);
  return true;
}

// One shown record's row (text) or object (--json); false when it failed (reported).
bool sprio_entry(const Options& o, Plugin& plugin, int64_t now, bool breakdown, JobRecord& r, uint32_t plain_prio,
                 int plain_status, SprioRow* row, JsonPtr* obj) {
  const mfprio_ops_t& ops = plugin.ops();
  if (!breakdown) {
    if (plain_status != MFPRIO_OK) {
      // A batch names only its first failure: ask for this record alone to get its message.
      uint32_t unused = 0;
      const int rc = ops.set_priority(&r.job, now, &unused);
      error_line(record_error(r, plugin, rc != MFPRIO_OK ? rc : plain_status));
      return false;
    }
    if (o.json) {
      obj->reset(json_object());
      json_object_set_new(obj->get(), "job_id", json_integer(static_cast<json_int_t>(r.spec->id)));
      json_object_set_new(obj->get(), "partition", json_string(r.partition));
      json_object_set_new(obj->get(), "user", json_string(r.spec->user.c_str()));
      json_object_set_new(obj->get(), "account", json_string(r.spec->account.c_str()));
      json_object_set_new(obj->get(), "qos", json_string(r.spec->qos.c_str()));
      json_object_set_new(obj->get(), "priority", json_integer(plain_prio));
    } else {
      row->job_id = r.spec->id;
      row->partition = r.partition;
      row->user = r.spec->user;
      row->account = r.spec->account;
      row->f.priority = plain_prio;
    }
    return true;
  }
  if (o.json) return factors_json(plugin, r, now, obj);
  row->f.struct_size = sizeof(mfprio_factors_t);
  const int rc = ops.job_factors(&r.job, now, &row->f);
  if (rc != MFPRIO_OK) {
    error_line(record_error(r, plugin, rc));
    return false;
  }
  row->job_id = r.spec->id;
  row->partition = resolved(r.partition, row->f.partition_name);
  row->user = r.spec->user;
  row->account = resolved(r.spec->account, row->f.account_name);
  row->name = r.spec->name;
  row->state = r.spec->state;
  row->submit = r.spec->submit;
  row->start = r.spec->start;
  row->deadline = r.spec->deadline;
  return true;
}

// A clamped priority is not the sum of its columns: say so, once.
void note_clamps(const std::vector<SprioRow>& shown) {
  size_t high = 0, low = 0;
  uint32_t high_at = 0, low_at = 0;
  for (const SprioRow& row : shown) {
    if (row.f.clamped == MFPRIO_CLAMP_HIGH) ++high, high_at = row.f.priority;
    if (row.f.clamped == MFPRIO_CLAMP_LOW) ++low, low_at = row.f.priority;
  }
  std::cout.flush();
  if (high)
    std::fprintf(stderr, "%s: sprio: %zu priorit%s clamped to %u (the terms sum past the family's maximum)\n", kProg,
                 high, high == 1 ? "y" : "ies", high_at);
  if (low)
    std::fprintf(stderr, "%s: sprio: %zu priorit%s raised to %u (the terms sum below the family's minimum)\n", kProg,
                 low, low == 1 ? "y" : "ies", low_at);
}

// sprio --view NAME: the plugin's own layout, which must have that job view
// (else a UsageError naming the views it has).
const Layout* view_layout(const Options& o, const ViewInfo& view) {
  const Layout* own = find_layout(view.layout);
  const std::vector<std::string> views = own ? own->views() : std::vector<std::string>{};
  std::string names;
  for (const std::string& n : views) names += (names.empty() ? "" : ", ") + n;
  if (std::find(views.begin(), views.end(), o.view) == views.end())
    throw UsageError("--view " + o.view + ": the plugin's view layout (" +
                     (view.layout.empty() ? std::string("generic") : view.layout) + ") has " +
                     (names.empty() ? std::string("no job views") : "the views " + names));
  return own;
}

// The text view: the layout the plugin names (plugin_info_json "view"), the
// format layout for -o, else the generic one.
void print_sprio_text(const Options& o, Plugin& plugin, std::vector<SprioRow> shown) {
  const ViewInfo view = parse_view_info(plugin.info_json());
  const Layout* layout = o.has_format ? &format_layout() : find_layout(view.layout);
  if (o.weights && !view.weights.known)
    error_line("warning: plugin_info_json has no weights; the Weights row is empty");
  if (!o.sort.empty()) {
    try {
      format_layout().sort(&shown, o.sort, view);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  if (!o.view.empty()) layout = view_layout(o, view);
  std::string text;
  if (!layout || !layout->sprio(shown, o, view, &text)) {
    // When no row names the terms, the layout comes from plugin_info_json.
    std::vector<TermColumn> columns = term_columns(shown);
    if (columns.empty() && shown.empty() && plugin.ops().job_factors)
      columns = term_columns_from_info(plugin.info_json());
    SprioOptions so;
    so.long_format = o.long_format;
    so.normalized = o.normalized;
    so.weights = o.weights;
    so.percent = o.percent;
    so.parsable = o.parsable;
    so.header = !o.noheader;
    text = format_sprio(shown, columns, so, view.weights);
  }
  std::cout << text;
  note_clamps(shown);
}

int cmd_sprio(const Options& o, Plugin& plugin, int64_t now) {
  if (!o.view.empty()) view_layout(o, parse_view_info(plugin.info_json()));  // checked before any pricing
  SprioQueue q;
  select_records(o, now, &q);
  resolve_shown(plugin, &q);
  price_queue(plugin, now, &q);
  const mfprio_ops_t& ops = plugin.ops();
  const bool breakdown = o.json ? ops.job_factors_json != nullptr : ops.job_factors != nullptr;
  std::vector<uint32_t> plain_prio;
  std::vector<int> plain_status;
  if (!breakdown) plain_priorities(o, plugin, now, q, &plain_prio, &plain_status);

  std::vector<SprioRow> rows(q.records.size());
  std::vector<JsonPtr> objects(q.records.size());
  for (size_t i : q.order) {
    if (!q.ok[i]) continue;
    q.ok[i] = sprio_entry(o, plugin, now, breakdown, q.records[i], breakdown ? 0 : plain_prio[i],
                          breakdown ? MFPRIO_OK : plain_status[i], &rows[i], &objects[i]);
    if (!q.ok[i]) ++q.failures;
  }
  // Rows are printed in job id order, a job's partitions in the order given.
  mfprio::stable_order(q.order.begin(), q.order.end(),
                       [&](size_t a, size_t b) { return q.records[a].spec->id < q.records[b].spec->id; });
  std::vector<SprioRow> shown;
  JsonPtr array(json_array());
  // A family whose sub-term weights are products (view.sub_weight_product):
  // each sub-term carries its weight_product, as in explain --json.
  const bool products =
      o.json && breakdown && parse_view_info(plugin.info_json()).flag("sub_weight_product", false);
  for (size_t i : q.order) {
    if (!q.ok[i]) continue;
    if (products) put_weight_products(objects[i].get());
    if (o.json) json_array_append_new(array.get(), objects[i].release());
    else shown.push_back(std::move(rows[i]));
  }
  if (o.json) {
    std::cout << json_dump_string(array.get(), JSON_INDENT(2)) << "\n";
  } else {
    // A partition filter on records that named none: the partition the plugin resolved.
    if (!o.partitions.empty())
      shown.erase(std::remove_if(shown.begin(), shown.end(),
                                 [&](const SprioRow& r) { return !user_selected(o.partitions, r.partition); }),
                  shown.end());
    print_sprio_text(o, plugin, std::move(shown));
  }
  std::cout.flush();
  return q.failures ? 1 : 0;
}

std::string current_user() {
  if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_name) return pw->pw_name;
  const char* u = std::getenv("USER");
  return u ? u : "";
}

// The share table as the plugin returns it, copied; freed before returning.
ShareTable fetch_share_table(const Plugin& plugin) {
  const Plugin::PluginShareTable table = plugin.share_table();
  const mfprio_share_table_t* raw = table.get();
  if (!raw) throw PluginError("share_table: the plugin returned no table", MFPRIO_EINTERNAL);
  try {
    return share_table_from(*raw);
  } catch (const std::runtime_error& e) {
    throw PluginError(e.what(), MFPRIO_EINVAL);
  }
}

// share_table_json's shape, built from the table (when the plugin has no share_table_json).
JsonPtr share_table_to_json(const ShareTable& t) {
  JsonPtr doc(json_object());
  json_t* cols = json_array();
  json_object_set_new(doc.get(), "columns", cols);
  for (const ShareColumn& c : t.columns) {
    json_t* o = json_object();
    json_object_set_new(o, "name", json_string(c.name.c_str()));
    json_object_set_new(o, "label", json_string(c.label.c_str()));
    json_array_append_new(cols, o);
  }
  json_t* rows = json_array();
  json_object_set_new(doc.get(), "rows", rows);
  for (const ShareRow& r : t.rows) {
    json_t* o = json_object();
    json_object_set_new(o, "parent", json_integer(r.parent));
    json_object_set_new(o, "depth", json_integer(r.depth));
    json_object_set_new(o, "account", json_string(r.account.c_str()));
    json_object_set_new(o, "user", r.is_user ? json_string(r.user.c_str()) : json_null());
    for (size_t c = 0; c < t.columns.size() && c < r.cells.size(); ++c) {
      const ShareCell& cell = r.cells[c];
      json_object_set_new(o, t.columns[c].name.c_str(),
                          cell.has_text ? json_string(cell.text.c_str())
                          : std::isfinite(cell.value) ? json_real(cell.value)
                                                      : json_null());
    }
    json_array_append_new(rows, o);
  }
  return doc;
}

// Drops the rows `keep` rejects from a share_table_json document ({"columns",
// "rows"}, or a bare array of rows) and renumbers "parent".  keep(user,
// account): user "" for an account row.
void filter_share_json(json_t* doc, const std::function<bool(const std::string&, const std::string&)>& keep) {
  json_t* rows = json_is_array(doc) ? doc : json_is_object(doc) ? json_object_get(doc, "rows") : nullptr;
  if (!rows || !json_is_array(rows)) return;
  std::vector<json_int_t> new_index(json_array_size(rows), -1);
  JsonPtr kept(json_array());
  size_t i;
  json_t* e;
  json_array_foreach(rows, i, e) {
    const json_t* u = json_is_object(e) ? json_object_get(e, "user") : nullptr;
    const json_t* a = json_is_object(e) ? json_object_get(e, "account") : nullptr;
    const std::string user = u && json_is_string(u) ? json_string_value(u) : "";
    if (!keep(user, a && json_is_string(a) ? json_string_value(a) : "")) continue;
    new_index[i] = static_cast<json_int_t>(json_array_size(kept.get()));
    json_array_append(kept.get(), e);
  }
  json_array_foreach(kept.get(), i, e) {
    json_t* p = json_is_object(e) ? json_object_get(e, "parent") : nullptr;
    if (!p || !json_is_integer(p)) continue;
    const json_int_t old = json_integer_value(p);
    const json_int_t now = old >= 0 && static_cast<size_t>(old) < new_index.size() ? new_index[old] : -1;
    if (now != old) json_object_set_new(e, "parent", json_integer(now));
  }
  json_array_clear(rows);
  json_array_extend(rows, kept.get());
}

// A string key of plugin_info_json ("" when absent or not a string).
std::string info_string(Plugin& plugin, const char* key) {
  const InfoMember v = info_member(plugin.info_json(), key);
  return json_is_string(v.value) ? std::string(json_string_value(v.value)) : std::string();
}

// sshare --job-file: a family that prices the whole queue at once shows its
// last pass in its share view (Grid Engine's targets and tickets), so the
// file's queue is priced first (its pending and held records with its
// running ones), as sprio prices it.  False (reported) when a record is bad.
bool share_view_pass(const Options& o, Plugin& plugin, int64_t now) {
  SprioQueue q;
  q.jf = load_jobs(o.jobs_file, &q.failures);
  q.records = expand_records(q.jf.jobs);
  q.shown.assign(q.records.size(), true);
  q.ok.assign(q.records.size(), false);
  for (size_t i = 0; i < q.records.size(); ++i) q.order.push_back(i);
  mfprio::stable_order(q.order.begin(), q.order.end(), [&](size_t a, size_t b) { return q.by_submit(a, b); });
  resolve_shown(plugin, &q);
  if (q.failures) return false;
  if (!plugin.ops().prioritize) {
    note_missing(plugin, "prioritize: its share view does not depend on a pricing pass (--job-file not needed)");
    return true;
  }
  price_queue(plugin, now, &q);
  for (size_t i : q.order) {
    const uint32_t st = q.records[i].spec->state;
    if ((st == MFPRIO_JOB_PENDING || st == MFPRIO_JOB_HELD) && q.queue_status[i] != MFPRIO_OK) {
      error_line(record_error(q.records[i], plugin, q.queue_status[i], "prioritize: "));
      ++q.failures;
    }
  }
  return q.failures == 0;
}

int cmd_sshare(const Options& o, Plugin& plugin, int64_t now) {
  const mfprio_ops_t& ops = plugin.ops();
  if (!ops.share_table && !(o.json && ops.share_table_json))
    throw PluginError("sshare: " + plugin.type() + " has no share view (the plugin provides no share_table)",
                      MFPRIO_ENOENT);
  if (!o.jobs_file.empty() && !share_view_pass(o, plugin, now)) {
    error_line("sshare: fix the job file first (nothing was shown)");
    return 1;
  }
  // Without -a: account rows plus the given users (-u) or the calling user.
  std::vector<std::string> users = o.users;
  if (users.empty() && !o.all_users) users.push_back(current_user());
  auto keep_user = [&](const std::string& u) { return o.all_users || user_selected(users, u); };

  if (o.json) {
    JsonPtr doc;
    if (ops.share_table_json) {
      char* raw = nullptr;
      const int rc = ops.share_table_json(&raw);
      Plugin::PluginString text = plugin.adopt(raw);
      plugin.check(rc, "share_table_json");
      doc.reset(text ? json_loads(text.get(), 0, nullptr) : nullptr);
      if (!doc) throw PluginError("share_table_json returned invalid JSON", MFPRIO_EINTERNAL);
    } else {
      doc = share_table_to_json(fetch_share_table(plugin));
    }
    // The same rows as the text view: users (-a/-u), -U, -A.
    filter_share_json(doc.get(), [&](const std::string& user, const std::string& account) {
      if (!user.empty() && !keep_user(user)) return false;
      if (user.empty() && o.users_only) return false;
      return o.accounts_filter.empty() || user_selected(o.accounts_filter, account);
    });
    std::cout << json_dump_string(doc.get(), JSON_INDENT(2)) << "\n";
    return 0;
  }

  // The layout the plugin names (or, for -o / -m, the format layout),
  // printed straight from the plugin's table (no copy of it, no string per cell).
  const ViewInfo view = parse_view_info(plugin.info_json());
  if (const Layout* layout = o.has_format || o.share_partitions ? &format_layout() : find_layout(view.layout)) {
    const Plugin::PluginShareTable table = plugin.share_table();
    const mfprio_share_table_t* raw = table.get();
    if (!raw) throw PluginError("share_table: the plugin returned no table", MFPRIO_EINTERNAL);
    try {
      check_share_table(*raw);
    } catch (const std::runtime_error& e) {
      throw PluginError(e.what(), MFPRIO_EINVAL);
    }
    std::function<bool(const mfprio_share_row_t&)> keep;
    if (!o.all_users || o.users_only || !o.accounts_filter.empty())
      keep = [&](const mfprio_share_row_t& r) {
        const bool is_user = r.is_user != 0;
        if (is_user && !keep_user(r.user ? r.user : "")) return false;
        if (!is_user && o.users_only) return false;
        return o.accounts_filter.empty() || user_selected(o.accounts_filter, r.account ? r.account : "");
      };
    std::cout.flush();
    const bool done = layout->sshare(*raw, o, view, keep, stdout);
    std::fflush(stdout);
    if (done) return 0;
  }
  ShareTable table = fetch_share_table(plugin);
  auto account_kept = [&](const ShareRow& r) {
    return o.accounts_filter.empty() || user_selected(o.accounts_filter, r.account);
  };
  std::vector<ShareRow> kept;
  for (ShareRow& r : table.rows)
    if ((!r.is_user || keep_user(r.user)) && (r.is_user || !o.users_only) && account_kept(r))
      kept.push_back(std::move(r));
  table.rows = std::move(kept);
  SshareOptions so;
  so.long_format = o.long_format;
  so.parsable = o.parsable;
  so.no_ending = o.parsable_no_ending;
  so.header = !o.noheader;
  // A family's own view header (plugin_info_json "share_header": Maui's
  // diagnose -f policy, depth, interval and decay lines) above the table.
  if (so.header && !o.parsable && !o.parsable_no_ending)
    if (const std::string head = info_string(plugin, "share_header"); !head.empty()) std::cout << head << "\n";
  std::cout << format_sshare(table, so);
  return 0;
}

// Reads, checks and resolves every record of a job file meant for decay or
// job_end.  Returns false (after printing why) when any record is unusable:
// those commands change the store, so they run on all records or none.
bool prepare_charge_records(const Options& o, Plugin& plugin, JobFile* jf, std::vector<JobRecord>* records) {
  int failures = 0;
  *jf = load_jobs(o.jobs_file, &failures);
  *records = expand_records(jf->jobs);
  for (const JobSpec& s : jf->jobs)
    if (s.partitions.size() > 1) {
      error_line(s.file + ":" + std::to_string(s.line) + ": job " + std::to_string(s.id) +
                 ": a running or finished job runs in one partition, not " + std::to_string(s.partitions.size()));
      ++failures;
    }
  if (failures) return false;
  for (JobRecord& r : *records) {
    const int rc = resolve(plugin, &r.job);
    if (rc != MFPRIO_OK) {
      error_line(record_error(r, plugin, rc));
      ++failures;
    }
  }
  return failures == 0;
}

// "<what>: <extra>" and, when the plugin has plugin_stats, its counters.
void print_stats(const char* what, Plugin& plugin, const std::string& extra) {
  if (!plugin.ops().plugin_stats) {
    std::printf("%s: %s\n", what, extra.c_str());
    return;
  }
  mfprio_stats_t st{};
  st.struct_size = sizeof st;
  plugin.check(plugin.ops().plugin_stats(&st), "plugin_stats");
  std::printf("%s: %s generation=%u last_decay=%lld associations=%llu jobs_charged=%llu clamped_high=%llu "
              "clamped_low=%llu\n",
              what, extra.c_str(), st.generation, static_cast<long long>(st.last_decay),
              static_cast<unsigned long long>(st.associations), static_cast<unsigned long long>(st.jobs_charged),
              static_cast<unsigned long long>(st.clamped_high), static_cast<unsigned long long>(st.clamped_low));
}

int cmd_decay(const Options& o, Plugin& plugin) {
  JobFile jf;
  std::vector<JobRecord> records;
  if (!o.jobs_file.empty() && !prepare_charge_records(o, plugin, &jf, &records)) {
    error_line("decay not run: fix the job file first (nothing was charged)");
    return 1;
  }
  std::vector<mfprio_job_t> running;
  running.reserve(records.size());
  for (const JobRecord& r : records) running.push_back(r.job);
  const int rc = plugin.ops().decay(*o.now, running.empty() ? nullptr : running.data(), running.size());
  plugin.check(rc, "decay");
  print_stats("decay", plugin, "now=" + std::to_string(*o.now) + " running=" + std::to_string(running.size()));
  return 0;
}

// The record a plugin message "job N: ..." is about, or nullptr.
const JobRecord* record_named(const std::vector<JobRecord>& records, const std::string& msg) {
  if (msg.compare(0, 4, "job ") != 0) return nullptr;
  char* end = nullptr;
  const unsigned long long id = std::strtoull(msg.c_str() + 4, &end, 10);
  if (!end || *end != ':') return nullptr;
  for (const JobRecord& r : records)
    if (r.spec->id == id) return &r;
  return nullptr;
}

// job_end_batch when the plugin has it (one transaction: all records or
// none), else job_end per record, else nothing: the family charges no usage
// at job end.
int cmd_job_end(const Options& o, Plugin& plugin) {
  const mfprio_ops_t& ops = plugin.ops();
  JobFile jf;
  std::vector<JobRecord> records;
  if (!prepare_charge_records(o, plugin, &jf, &records)) {
    error_line("job-end not run: fix the job file first (nothing was charged)");
    return 1;
  }
  const std::string head = "end=" + std::to_string(*o.end) + " jobs=";
  const std::string all = std::to_string(records.size());
  if (!ops.job_end_batch && !ops.job_end) {
    std::printf("job-end: %s0/%s: %s charges no usage at job end (no job_end or job_end_batch)\n", head.c_str(),
                all.c_str(), plugin.type().c_str());
    return 0;
  }
  if (ops.job_end_batch) {
    std::vector<mfprio_job_t> jobs;
    jobs.reserve(records.size());
    for (const JobRecord& r : records) jobs.push_back(r.job);
    const std::vector<int64_t> ends(records.size(), *o.end);
    const int rc =
        jobs.empty() ? MFPRIO_OK : ops.job_end_batch(jobs.data(), jobs.size(), ends.data());
    if (rc != MFPRIO_OK) {
      if (const JobRecord* bad = record_named(records, plugin.last_error()))
        error_line(record_error(*bad, plugin, rc, "job_end_batch: "));
      else
        error_line("job_end_batch: " + plugin.last_error() + " (" + status_name(rc) + ")");
      error_line("job-end: nothing was charged (job_end_batch charges all records or none)");
    }
    print_stats("job-end", plugin, head + (rc == MFPRIO_OK ? all : std::string("0")) + "/" + all);
    return rc == MFPRIO_OK ? 0 : 1;
  }
  size_t done = 0;
  int failures = 0;
  for (const JobRecord& r : records) {
    const int rc = ops.job_end(&r.job, *o.end);
    if (rc != MFPRIO_OK) {
      error_line(record_error(r, plugin, rc, "job_end: "));
      ++failures;
    } else {
      ++done;
    }
  }
  print_stats("job-end", plugin, head + std::to_string(done) + "/" + all);
  return failures ? 1 : 0;
}

// The calc-period loop (loop.hpp) over the job file's records.
int cmd_loop(const Options& o, const Conf& conf, Plugin& plugin, Clock* clock) {
  JobFile jf;
  std::vector<JobRecord> records;
  if (!prepare_charge_records(o, plugin, &jf, &records)) {
    error_line("loop not run: fix the job file first (nothing was charged)");
    return 1;
  }
  LoopOptions lo;
  lo.start = *o.start;
  lo.until = *o.until;
  lo.period = o.calc_period ? *o.calc_period : conf_calc_period(conf);
  lo.speed = o.speed > 0 ? o.speed : 1;
  lo.origin = o.origin ? *o.origin
                       : std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  lo.report_passes = o.report_passes;
  return run_loop(records, lo, plugin, clock, std::cout);
}

int cmd_info(Plugin& plugin) {
  if (!plugin.ops().plugin_info_json) {  // the identity is all there is to say
    JsonPtr doc(json_object());
    json_object_set_new(doc.get(), "plugin_type", json_string(plugin.type().c_str()));
    json_object_set_new(doc.get(), "plugin_name", json_string(plugin.name().c_str()));
    json_object_set_new(doc.get(), "abi_version", json_integer(MFPRIO_ABI_VERSION));
    std::cout << json_dump_string(doc.get(), JSON_INDENT(2)) << "\n";
    note_missing(plugin, "plugin_info_json: info shows its identity only");
    return 0;
  }
  const std::string text = plugin.info_json();
  JsonPtr doc(json_loads(text.c_str(), 0, nullptr));
  if (doc) std::cout << json_dump_string(doc.get(), JSON_INDENT(2)) << "\n";
  else std::cout << text << "\n";
  return 0;
}

// plugin_info_json's "no_decay_conf" object as conf pairs (none when absent).
std::vector<ConfPair> no_decay_pairs(const std::string& info) {
  std::vector<ConfPair> out;
  const InfoMember member = info_member(info, "no_decay_conf");
  const json_t* obj = member.value;
  if (!json_is_object(obj)) return out;
  const char* k;
  json_t* v;
  json_object_foreach(const_cast<json_t*>(obj), k, v) {
    if (json_is_string(v)) out.push_back(ConfPair{k, json_string_value(v), "<replay --no-decay>", 0});
  }
  return out;
}

// replay: the whole trace is read and checked before anything is loaded.
int cmd_replay(const Options& o) {
  const SwfTrace trace = read_swf(o.swf, o.limit);
  ReplayPlan plan = plan_replay(trace, o.start ? *o.start : -1);
  if (!o.emit_accounts.empty()) {
    const std::string text = accounts_json(plan);
    std::ofstream f(o.emit_accounts, std::ios::trunc);
    if (!(f << text) || !(f.flush()))
      throw std::runtime_error("cannot write '" + o.emit_accounts + "': " + std::strerror(errno));
    std::printf("replay: wrote %zu users in %s for 'mfprio-acct import %s'\n", plan.user_groups.size(),
                o.emit_accounts.c_str(), o.emit_accounts.c_str());
    return 0;
  }
  Conf conf = Conf::load(o.conf);
  HostSettings settings = read_settings(conf, MFPRIO_PLUGINDIR, o.plugin_dir);
  if (settings.cluster.cpus == 0 && trace.max_procs > 0)  // no NodeName/ClusterCPUs: the trace's machine
    settings.cluster.cpus = static_cast<uint32_t>(std::min<int64_t>(trace.max_procs, UINT32_MAX));
  if (settings.cluster.nodes == 0 && trace.max_nodes > 0)
    settings.cluster.nodes = static_cast<uint32_t>(std::min<int64_t>(trace.max_nodes, UINT32_MAX));

  LogSink sink;
  sink.max_level = o.verbose ? MFPRIO_LOG_DEBUG : MFPRIO_LOG_WARNING;
  Clock clock;
  clock.fixed = true;
  clock.now = plan.jobs.empty() ? plan.epoch0 : plan.jobs.front().submit;
  std::unique_ptr<Plugin> plugin = Plugin::open(settings.priority_type, settings.plugin_dirs);
  plugin->init(conf, settings.cluster, &sink, &clock);
  if (o.no_decay) {
    // The family says which of its settings keep usage from decaying
    // (plugin_info_json "no_decay_conf"); they override the conf's, and the
    // plugin starts again with them before anything is charged.
    const std::vector<ConfPair> pairs = no_decay_pairs(plugin->info_json());
    if (pairs.empty())
      throw std::runtime_error("replay --no-decay: " + plugin->type() +
                               " names no settings that stop its usage decay (plugin_info_json has no "
                               "\"no_decay_conf\"); replay without --no-decay (nothing was charged)");
    plugin.reset();  // fini and dlclose
    for (const ConfPair& p : pairs) conf.add(p);
    plugin = Plugin::open(settings.priority_type, settings.plugin_dirs);
    plugin->init(conf, settings.cluster, &sink, &clock);
  }
  ReplayOptions ro;
  ro.calc_period = o.calc_period ? *o.calc_period : conf_calc_period(conf);
  ro.speed = o.speed;
  ro.report_passes = o.report_passes;
  ro.pending_top = o.pending_top;
  ro.sshare = !o.no_sshare;
  return run_replay(plan, ro, *plugin, clock, std::cout);
}

int run(const Options& o) {
  if (o.command == Command::Replay) return cmd_replay(o);
  if (o.command == Command::Simulate) return cmd_simulate(o);
  Conf conf = o.slurm ? slurm_family_conf(o.conf) : Conf::load(o.conf);
  const HostSettings settings = read_settings(conf, MFPRIO_PLUGINDIR, o.plugin_dir);
  // Views never create a store: a missing one is an error saying how to
  // make it (the runtime reads this pair; decay and job-end may create it).
  // The pair's file is the conf given (line 0: no line wrote it), so the
  // hint names it, not a file it includes.
  if (o.command == Command::Sprio || o.command == Command::Sshare || o.command == Command::Explain ||
      o.command == Command::Info)
    conf.add(ConfPair{"MfprioCreateStore", "no", o.conf, 0});
  // Job files are read before the plugin is loaded: a missing file costs nothing.
  if (!o.jobs_file.empty() && ::access(o.jobs_file.c_str(), R_OK) != 0)
    throw JobParseError("cannot read job file '" + o.jobs_file + "'");

  LogSink sink;
  sink.max_level = o.verbose ? MFPRIO_LOG_DEBUG : MFPRIO_LOG_WARNING;
  Clock clock;
  if (o.now) {
    clock.fixed = true;
    clock.now = *o.now;
  }
  std::unique_ptr<Plugin> plugin = Plugin::open(settings.priority_type, settings.plugin_dirs);
  if (o.verbose)
    std::fprintf(stderr, "%s: loaded %s (%s) from %s\n", kProg, plugin->type().c_str(), plugin->name().c_str(),
                 plugin->path().c_str());
  plugin->init(conf, settings.cluster, &sink, &clock);

  switch (o.command) {
    case Command::Sprio: return cmd_sprio(o, *plugin, clock.read());
    case Command::Sshare: return cmd_sshare(o, *plugin, clock.read());
    case Command::Decay: return cmd_decay(o, *plugin);
    case Command::JobEnd: return cmd_job_end(o, *plugin);
    case Command::Info: return cmd_info(*plugin);
    case Command::Explain: return cmd_explain(o, *plugin, clock, clock.read());
    case Command::Loop: return cmd_loop(o, conf, *plugin, &clock);
    case Command::Replay:
    case Command::Simulate:
    case Command::None: break;
  }
  return 2;
}

}  // namespace
}  // namespace mfprio::host

int main(int argc, char** argv) {
  using namespace mfprio::host;
  Options o;
  try {
    o = parse_cli(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n%s", kProg, e.what(), usage_text());
    return 2;
  }
  if (o.help) {
    std::fputs(usage_text(), stdout);
    return 0;
  }
  if (o.command_help) {
    std::fputs(command_usage(o.command), stdout);
    return 0;
  }
  if (o.version) {
    std::printf("%s %s\n", kProg, MFPRIO_VERSION);
    return 0;
  }
  if (o.helpformat) {
    std::fputs(format_layout().helpformat(o.command).c_str(), stdout);
    return 0;
  }
  // Formats and sort keys are checked before anything is loaded.
  try {
    format_layout().check(o);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s: %s\n", kProg, o.command == Command::Sprio ? "sprio" : "sshare", e.what());
    return 2;
  }
  if (!o.clusters.empty())
    std::fprintf(stderr, "%s: note: -M/--clusters '%s' ignored (mfprio-host serves the one cluster of its conf)\n",
                 kProg, o.clusters.c_str());
  try {
    return run(o.slurm ? slurm_sprio_options(o) : o);
  } catch (const std::exception& e) {  // ConfError, SettingsError, LoadError, PluginError, JobParseError, bad_alloc
    std::cout.flush();
    error_line(e.what());
    return 1;
  }
}
