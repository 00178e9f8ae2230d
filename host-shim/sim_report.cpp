// sim_report.cpp - see sim_report.hpp.  Numbers are printed with fixed
// decimals (%.6g would change shape with magnitude); JSON reals go through
// jansson with JSON_REAL_PRECISION(12) so two runs print the same bytes.
#include "sim_report.hpp"

#include <cstdio>
#include <sstream>

#include "json_util.hpp"

namespace mfprio::host {
namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// Seconds as a short duration: "45s", "12.5m", "3.20h", "2.10d".
std::string dur(double s) {
  if (s < 60) return fmt("%.0fs", s);
  if (s < 3600) return fmt("%.1fm", s / 60);
  if (s < 86400) return fmt("%.2fh", s / 3600);
  return fmt("%.2fd", s / 86400);
}

std::string pad(const std::string& s, size_t w, bool left = false) {
  if (s.size() >= w) return s;
  return left ? s + std::string(w - s.size(), ' ') : std::string(w - s.size(), ' ') + s;
}

const char* backfill_name(Backfill b) { return b == Backfill::Easy ? "easy" : "none"; }

// Signed: "+12.5m", "-3s"; "0s" for none.
std::string signed_dur(double d) {
  if (d == 0) return "0s";
  return (d > 0 ? "+" : "-") + dur(d > 0 ? d : -d);
}

// One group table (accounts, users, size or run-time classes): NAME, then
// per policy a column group; `shares`: with the delivered and target share.
void group_table(std::ostringstream& out, const char* title, const std::vector<PolicyResult>& ps,
                 const std::vector<GroupStats> PolicyResult::*member, bool shares) {
  const std::vector<GroupStats>& first = ps.front().*member;
  size_t nw = std::string(title).size();
  for (const GroupStats& g : first) nw = std::max(nw, g.name.size());
  static const char* kCols[] = {"JOBS",  "WAITMEAN", "WAITP50", "WAITP95", "WAITP99", "WAITMAX",
                                "BSLD",  "BSLDP95",  "LATER%",  "DELIV%",  "TARGET%"};
  static const size_t kW[] = {6, 9, 9, 9, 9, 9, 8, 8, 7, 8, 8};
  const size_t cols = shares ? 11 : 9;
  size_t group_w = 0;
  for (size_t c = 0; c < cols; ++c) group_w += kW[c] + 1;
  // Header: policy names over their column groups.
  out << pad("", nw, true);
  for (const PolicyResult& p : ps) {
    std::string label = "| " + p.name;
    out << " " << pad(label.substr(0, group_w), group_w, true);
  }
  out << "\n" << pad(title, nw, true);
  for (size_t i = 0; i < ps.size(); ++i) {
    out << " |";
    for (size_t c = 0; c < cols; ++c) out << pad(kCols[c], kW[c]) << (c + 1 < cols ? " " : "");
  }
  out << "\n";
  for (size_t r = 0; r < first.size(); ++r) {
    out << pad(first[r].name, nw, true);
    for (const PolicyResult& p : ps) {
      const GroupStats& g = (p.*member)[r];
      const std::string cell[] = {std::to_string(g.jobs),         dur(g.wait_mean),
                                  dur(g.wait_p50),                dur(g.wait_p95),
                                  dur(g.wait_p99),                dur(g.wait_max),
                                  fmt("%.2f", g.bsld_mean),       fmt("%.2f", g.bsld_p95),
                                  fmt("%.1f", 100 * g.later_than_fifo), fmt("%.2f", 100 * g.delivered_share),
                                  fmt("%.2f", 100 * g.target_share)};
      out << " |";
      for (size_t c = 0; c < cols; ++c) out << pad(cell[c], kW[c]) << (c + 1 < cols ? " " : "");
    }
    out << "\n";
  }
}

json_t* real(double v) { return json_real(v); }

// The wait statistics a policy and each of its groups report alike.
template <typename Stats>
void set_wait_stats(json_t* o, const Stats& s) {
  json_object_set_new(o, "wait_mean", real(s.wait_mean));
  json_object_set_new(o, "wait_p50", real(s.wait_p50));
  json_object_set_new(o, "wait_p95", real(s.wait_p95));
  json_object_set_new(o, "bounded_slowdown_mean", real(s.bsld_mean));
  json_object_set_new(o, "wait_p99", real(s.wait_p99));
  json_object_set_new(o, "wait_max", real(s.wait_max));
  json_object_set_new(o, "bounded_slowdown_p50", real(s.bsld_p50));
  json_object_set_new(o, "bounded_slowdown_p95", real(s.bsld_p95));
  json_object_set_new(o, "bounded_slowdown_p99", real(s.bsld_p99));
  json_object_set_new(o, "later_than_fifo", real(s.later_than_fifo));
}

json_t* group_json(const GroupStats& g) {
  json_t* o = json_object();
  json_object_set_new(o, "name", json_string(g.name.c_str()));
  json_object_set_new(o, "jobs", json_integer(static_cast<json_int_t>(g.jobs)));
  set_wait_stats(o, g);
  json_object_set_new(o, "cpu_seconds", real(g.cpu_seconds));
  json_object_set_new(o, "delivered_share", real(g.delivered_share));
  json_object_set_new(o, "target_share", real(g.target_share));
  return o;
}

json_t* real_array(const std::vector<double>& v) {
  json_t* a = json_array();
  for (double x : v) json_array_append_new(a, real(x));
  return a;
}

// v[s], 0 when v has no such element (a result not made by run_policy).
double at(const std::vector<double>& v, size_t s) { return s < v.size() ? v[s] : 0.0; }
double at(const std::vector<std::vector<double>>& m, size_t s, size_t k) { return s < m.size() ? at(m[s], k) : 0.0; }

// Column k of a [sample][account] matrix.
std::vector<double> column(const std::vector<std::vector<double>>& m, size_t k) {
  std::vector<double> out;
  out.reserve(m.size());
  for (const std::vector<double>& row : m) out.push_back(at(row, k));
  return out;
}

// The samples over time (man mfprio-host(1), "timeline"): one array per
// measure, an element per sample.
json_t* timeline_json(const PolicyResult& p) {
  json_t* o = json_object();
  json_t* t = json_array();
  for (int64_t x : p.sample_t) json_array_append_new(t, json_integer(x));
  json_object_set_new(o, "t", t);
  json_object_set_new(o, "utilization", real_array(p.sample_util));
  json_object_set_new(o, "demand", real_array(p.sample_demand));
  json_t* accts = json_array();
  for (size_t k = 0; k < p.accounts.size(); ++k) {
    json_t* a = json_object();
    json_object_set_new(a, "name", json_string(p.accounts[k].name.c_str()));
    json_object_set_new(a, "delivered_share", real_array(column(p.sample_share, k)));
    json_object_set_new(a, "demand_share", real_array(column(p.sample_demand_share, k)));
    json_object_set_new(a, "utilization", real_array(column(p.sample_acct_util, k)));
    json_array_append_new(accts, a);
  }
  json_object_set_new(o, "accounts", accts);
  return o;
}

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// One row per measure, one column per policy, then for each policy after
// the first its difference from the first ("B-A").
void overall_table(std::ostringstream& out, const std::vector<PolicyResult>& ps) {
  const size_t w = 16;
  out << pad("OVERALL", 24, true);
  for (const PolicyResult& p : ps) out << " " << pad(p.name, w);
  for (size_t i = 1; i < ps.size(); ++i) out << " " << pad((ps[i].name + "-" + ps[0].name).substr(0, w), w);
  out << "\n";
  // kind: 'd' duration, 'n' number (digits), 'p' percent of a fraction, 't' text (no difference)
  auto row = [&](const char* name, char kind, int digits, auto get) {
    out << pad(name, 24, true);
    auto show = [&](double v, bool diff) -> std::string {
      if (kind == 'd') return diff ? signed_dur(v) : dur(v);
      char f[16];
      std::snprintf(f, sizeof f, diff ? "%%+.%df" : "%%.%df", digits);
      return fmt(f, kind == 'p' ? 100 * v : v);
    };
    for (const PolicyResult& p : ps) out << " " << pad(show(get(p), false), w);
    for (size_t i = 1; i < ps.size(); ++i) out << " " << pad(show(get(ps[i]) - get(ps[0]), true), w);
    out << "\n";
  };
  using P = const PolicyResult&;
  row("jobs", 'n', 0, [](P p) { return static_cast<double>(p.jobs); });
  row("utilization %", 'p', 2, [](P p) { return p.utilization; });
  row("makespan", 'd', 0, [](P p) { return static_cast<double>(p.makespan); });
  row("wait mean", 'd', 0, [](P p) { return p.wait_mean; });
  row("wait p50", 'd', 0, [](P p) { return p.wait_p50; });
  row("wait p95", 'd', 0, [](P p) { return p.wait_p95; });
  row("wait p99", 'd', 0, [](P p) { return p.wait_p99; });
  row("wait max", 'd', 0, [](P p) { return p.wait_max; });
  row("bounded slowdown", 'n', 2, [](P p) { return p.bsld_mean; });
  row("bounded slowdown p50", 'n', 2, [](P p) { return p.bsld_p50; });
  row("bounded slowdown p95", 'n', 2, [](P p) { return p.bsld_p95; });
  row("bounded slowdown p99", 'n', 2, [](P p) { return p.bsld_p99; });
  row("later than FIFO %", 'p', 2, [](P p) { return p.later_than_fifo; });
  row("Jain users' wait", 'n', 4, [](P p) { return p.jain_user_wait; });
  row("Jain users' slowdown", 'n', 4, [](P p) { return p.jain_user_bsld; });
  row("worst user's wait", 'd', 0, [](P p) { return p.worst_user_wait; });
  out << pad("worst user", 24, true);
  for (const PolicyResult& p : ps) out << " " << pad(p.worst_user, w);
  out << "\n";
  row("Jain (deliv/target)", 'n', 4, [](P p) { return p.jain; });
  row("backfilled jobs", 'n', 0, [](P p) { return static_cast<double>(p.backfilled); });
  out << pad("charged usage", 24, true);
  for (const PolicyResult& p : ps) out << " " << pad(p.charged_usage ? fmt("%.0f", *p.charged_usage) : "-", w);
  out << "\n";
  row("cpu-seconds", 'n', 0, [](P p) { return p.cpu_seconds; });
}

}  // namespace

std::string sim_report_text(const SimHeader& h, const std::vector<PolicyResult>& ps) {
  std::ostringstream out;
  out << "simulate: " << h.trace << ": " << h.records << " records, " << h.jobs << " jobs simulated, " << h.skipped
      << " skipped; " << h.procs << " processors; backfill " << h.backfill << "\n";
  for (size_t i = 0; i < ps.size(); ++i)
    out << "policy " << ps[i].name << ": " << ps[i].conf << " (" << ps[i].plugin_type << ", " << ps[i].pricing_op
        << ", calc period " << ps[i].calc_period << " s, target shares: " << ps[i].target_rule << ")\n";
  if (ps.empty()) return out.str();
  out << "\n";
  overall_table(out, ps);
  out << "\n";
  group_table(out, "ACCOUNT", ps, &PolicyResult::accounts, true);
  out << "\n";
  group_table(out, "USER", ps, &PolicyResult::users, true);
  out << "\n";
  if (ps.front().partitions.size() > 1) {
    group_table(out, "PARTITION", ps, &PolicyResult::partitions, false);
    out << "\n";
  }
  group_table(out, "JOB SIZE", ps, &PolicyResult::sizes, false);
  out << "\n";
  group_table(out, "RUN TIME", ps, &PolicyResult::runtimes, false);
  return out.str();
}

std::string sim_report_json(const SimHeader& h, const std::vector<PolicyResult>& ps) {
  JsonPtr doc(json_object());
  json_t* tr = json_object();
  json_object_set_new(tr, "file", json_string(h.trace.c_str()));
  json_object_set_new(tr, "records", json_integer(static_cast<json_int_t>(h.records)));
  json_object_set_new(tr, "jobs", json_integer(static_cast<json_int_t>(h.jobs)));
  json_object_set_new(tr, "skipped", json_integer(static_cast<json_int_t>(h.skipped)));
  json_object_set_new(tr, "procs", json_integer(h.procs));
  json_object_set_new(tr, "backfill", json_string(h.backfill.c_str()));
  json_object_set_new(doc.get(), "trace", tr);
  json_t* arr = json_array();
  json_object_set_new(doc.get(), "policies", arr);
  for (const PolicyResult& p : ps) {
    json_t* o = json_object();
    json_object_set_new(o, "name", json_string(p.name.c_str()));
    json_object_set_new(o, "conf", json_string(p.conf.c_str()));
    json_object_set_new(o, "plugin_type", json_string(p.plugin_type.c_str()));
    json_object_set_new(o, "pricing_op", json_string(p.pricing_op.c_str()));
    json_object_set_new(o, "calc_period", json_integer(p.calc_period));
    json_object_set_new(o, "backfill", json_string(backfill_name(p.backfill)));
    json_object_set_new(o, "target_rule", json_string(p.target_rule.c_str()));
    json_t* ov = json_object();
    json_object_set_new(ov, "jobs", json_integer(static_cast<json_int_t>(p.jobs)));
    json_object_set_new(ov, "first_submit", json_integer(p.first_submit));
    json_object_set_new(ov, "last_end", json_integer(p.last_end));
    json_object_set_new(ov, "makespan", json_integer(p.makespan));
    json_object_set_new(ov, "utilization", real(p.utilization));
    set_wait_stats(ov, p);
    json_object_set_new(ov, "jain_index", real(p.jain));
    json_object_set_new(ov, "backfilled", json_integer(static_cast<json_int_t>(p.backfilled)));
    json_object_set_new(ov, "pricing_calls", json_integer(static_cast<json_int_t>(p.pricing_calls)));
    json_object_set_new(ov, "decay_passes", json_integer(static_cast<json_int_t>(p.decay_passes)));
    json_object_set_new(ov, "cpu_seconds", real(p.cpu_seconds));
    json_object_set_new(ov, "charged_usage", p.charged_usage ? real(*p.charged_usage) : json_null());
    json_object_set_new(ov, "jain_user_wait", real(p.jain_user_wait));
    json_object_set_new(ov, "jain_user_bounded_slowdown", real(p.jain_user_bsld));
    json_object_set_new(ov, "worst_user", json_string(p.worst_user.c_str()));
    json_object_set_new(ov, "worst_user_wait_mean", real(p.worst_user_wait));
    json_object_set_new(o, "overall", ov);
    json_t* accts = json_array();
    for (const GroupStats& g : p.accounts) json_array_append_new(accts, group_json(g));
    json_object_set_new(o, "accounts", accts);
    json_t* users = json_array();
    for (const GroupStats& g : p.users) json_array_append_new(users, group_json(g));
    json_object_set_new(o, "users", users);
    for (const auto& [key, member] : {std::pair{"partitions", &PolicyResult::partitions},
                                      std::pair{"sizes", &PolicyResult::sizes},
                                      std::pair{"runtimes", &PolicyResult::runtimes}}) {
      json_t* a = json_array();
      for (const GroupStats& g : p.*member) json_array_append_new(a, group_json(g));
      json_object_set_new(o, key, a);
    }
    json_object_set_new(o, "timeline", timeline_json(p));
    json_array_append_new(arr, o);
  }
  return json_dump_string(doc.get(), JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12)) + "\n";
}

std::string sim_report_csv(const SimHeader& h, const std::vector<PolicyResult>& ps) {
  (void)h;
  std::ostringstream out;
  out << "policy,conf,plugin_type,scope,name,jobs,wait_mean,wait_p50,wait_p95,bounded_slowdown_mean,cpu_seconds,"
         "delivered_share,target_share,utilization,makespan,jain_index,wait_p99,wait_max,bounded_slowdown_p50,"
         "bounded_slowdown_p95,bounded_slowdown_p99,later_than_fifo,jain_user_wait,jain_user_bounded_slowdown,"
         "worst_user,worst_user_wait_mean,time,demand,demand_share\n";
  // The measures every row has, after its first columns.
  auto tail = [](const GroupStats& g) {
    return "," + fmt("%.3f", g.wait_p99) + "," + fmt("%.3f", g.wait_max) + "," + fmt("%.6f", g.bsld_p50) + "," +
           fmt("%.6f", g.bsld_p95) + "," + fmt("%.6f", g.bsld_p99) + "," + fmt("%.6f", g.later_than_fifo);
  };
  for (const PolicyResult& p : ps) {
    const std::string head = csv_quote(p.name) + "," + csv_quote(p.conf) + "," + csv_quote(p.plugin_type) + ",";
    GroupStats o;
    o.wait_p99 = p.wait_p99;
    o.wait_max = p.wait_max;
    o.bsld_p50 = p.bsld_p50;
    o.bsld_p95 = p.bsld_p95;
    o.bsld_p99 = p.bsld_p99;
    o.later_than_fifo = p.later_than_fifo;
    out << head << "overall,," << p.jobs << "," << fmt("%.3f", p.wait_mean) << "," << fmt("%.3f", p.wait_p50) << ","
        << fmt("%.3f", p.wait_p95) << "," << fmt("%.6f", p.bsld_mean) << "," << fmt("%.0f", p.cpu_seconds)
        << ",1,1," << fmt("%.6f", p.utilization) << "," << p.makespan << "," << fmt("%.6f", p.jain) << tail(o) << ","
        << fmt("%.6f", p.jain_user_wait) << "," << fmt("%.6f", p.jain_user_bsld) << "," << csv_quote(p.worst_user)
        << "," << fmt("%.3f", p.worst_user_wait) << ",,,\n";
    auto groups = [&](const char* scope, const std::vector<GroupStats>& gs) {
      for (const GroupStats& g : gs)
        out << head << scope << "," << csv_quote(g.name) << "," << g.jobs << "," << fmt("%.3f", g.wait_mean) << ","
            << fmt("%.3f", g.wait_p50) << "," << fmt("%.3f", g.wait_p95) << "," << fmt("%.6f", g.bsld_mean) << ","
            << fmt("%.0f", g.cpu_seconds) << "," << fmt("%.6f", g.delivered_share) << ","
            << fmt("%.6f", g.target_share) << ",,," << tail(g) << ",,,,,,,\n";
    };
    groups("account", p.accounts);
    groups("user", p.users);
    groups("partition", p.partitions);
    groups("size", p.sizes);
    groups("runtime", p.runtimes);
    // The timeline: per sample a "time" row (the machine) and a "time_account"
    // row per account; the columns that do not apply are empty.
    for (size_t s = 0; s < p.sample_t.size(); ++s) {
      const std::string t = std::to_string(p.sample_t[s]);
      out << head << "time,,,,,,,,,," << fmt("%.6f", at(p.sample_util, s)) << ",,,,,,,,,,,,," << t << ","
          << fmt("%.6f", at(p.sample_demand, s)) << ",\n";
      for (size_t k = 0; k < p.accounts.size(); ++k)
        out << head << "time_account," << csv_quote(p.accounts[k].name) << ",,,,,,,"
            << fmt("%.6f", at(p.sample_share, s, k)) << ",," << fmt("%.6f", at(p.sample_acct_util, s, k))
            << ",,,,,,,,,,,,," << t << ",," << fmt("%.6f", at(p.sample_demand_share, s, k)) << "\n";
    }
  }
  return out.str();
}

}  // namespace mfprio::host
