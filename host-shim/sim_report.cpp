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

// One group table (accounts or users): NAME, then per policy a column group.
void group_table(std::ostringstream& out, const char* title, const std::vector<PolicyResult>& ps,
                 const std::vector<GroupStats> PolicyResult::*member) {
  const std::vector<GroupStats>& first = ps.front().*member;
  size_t nw = std::string(title).size();
  for (const GroupStats& g : first) nw = std::max(nw, g.name.size());
  static const char* kCols[] = {"JOBS", "WAITMEAN", "WAITP50", "WAITP95", "BSLD", "DELIV%", "TARGET%"};
  static const size_t kW[] = {6, 9, 9, 9, 8, 8, 8};
  constexpr size_t kN = 7;
  size_t group_w = 0;
  for (size_t c = 0; c < kN; ++c) group_w += kW[c] + 1;
  // Header: policy names over their column groups.
  out << pad("", nw, true);
  for (const PolicyResult& p : ps) {
    std::string label = "| " + p.name;
    out << " " << pad(label.substr(0, group_w), group_w, true);
  }
  out << "\n" << pad(title, nw, true);
  for (size_t i = 0; i < ps.size(); ++i) {
    out << " |";
    for (size_t c = 0; c < kN; ++c) out << pad(kCols[c], kW[c]) << (c + 1 < kN ? " " : "");
  }
  out << "\n";
  for (size_t r = 0; r < first.size(); ++r) {
    out << pad(first[r].name, nw, true);
    for (const PolicyResult& p : ps) {
      const GroupStats& g = (p.*member)[r];
      out << " |" << pad(std::to_string(g.jobs), kW[0]) << " " << pad(dur(g.wait_mean), kW[1]) << " "
          << pad(dur(g.wait_p50), kW[2]) << " " << pad(dur(g.wait_p95), kW[3]) << " " << pad(fmt("%.2f", g.bsld_mean), kW[4])
          << " " << pad(fmt("%.2f", 100 * g.delivered_share), kW[5]) << " " << pad(fmt("%.2f", 100 * g.target_share), kW[6]);
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

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
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
  // Overall: one row per metric, one column per policy.
  const size_t w = 16;
  out << pad("OVERALL", 22, true);
  for (const PolicyResult& p : ps) out << " " << pad(p.name, w);
  out << "\n";
  auto row = [&](const char* name, auto get) {
    out << pad(name, 22, true);
    for (const PolicyResult& p : ps) out << " " << pad(get(p), w);
    out << "\n";
  };
  row("jobs", [](const PolicyResult& p) { return std::to_string(p.jobs); });
  row("utilization %", [](const PolicyResult& p) { return fmt("%.2f", 100 * p.utilization); });
  row("makespan", [](const PolicyResult& p) { return dur(static_cast<double>(p.makespan)); });
  row("wait mean", [](const PolicyResult& p) { return dur(p.wait_mean); });
  row("wait p50", [](const PolicyResult& p) { return dur(p.wait_p50); });
  row("wait p95", [](const PolicyResult& p) { return dur(p.wait_p95); });
  row("bounded slowdown", [](const PolicyResult& p) { return fmt("%.2f", p.bsld_mean); });
  row("Jain (deliv/target)", [](const PolicyResult& p) { return fmt("%.4f", p.jain); });
  row("backfilled jobs", [](const PolicyResult& p) { return std::to_string(p.backfilled); });
  row("charged usage", [](const PolicyResult& p) {
    return p.charged_usage ? fmt("%.0f", *p.charged_usage) : std::string("-");
  });
  row("cpu-seconds", [](const PolicyResult& p) { return fmt("%.0f", p.cpu_seconds); });
  out << "\n";
  group_table(out, "ACCOUNT", ps, &PolicyResult::accounts);
  out << "\n";
  group_table(out, "USER", ps, &PolicyResult::users);
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
    json_object_set_new(o, "overall", ov);
    json_t* accts = json_array();
    for (const GroupStats& g : p.accounts) json_array_append_new(accts, group_json(g));
    json_object_set_new(o, "accounts", accts);
    json_t* users = json_array();
    for (const GroupStats& g : p.users) json_array_append_new(users, group_json(g));
    json_object_set_new(o, "users", users);
    json_array_append_new(arr, o);
  }
  return json_dump_string(doc.get(), JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12)) + "\n";
}

std::string sim_report_csv(const SimHeader& h, const std::vector<PolicyResult>& ps) {
  (void)h;
  std::ostringstream out;
  out << "policy,conf,plugin_type,scope,name,jobs,wait_mean,wait_p50,wait_p95,bounded_slowdown_mean,cpu_seconds,"
         "delivered_share,target_share,utilization,makespan,jain_index\n";
  for (const PolicyResult& p : ps) {
    const std::string head = csv_quote(p.name) + "," + csv_quote(p.conf) + "," + csv_quote(p.plugin_type) + ",";
    out << head << "overall,," << p.jobs << "," << fmt("%.3f", p.wait_mean) << "," << fmt("%.3f", p.wait_p50) << ","
        << fmt("%.3f", p.wait_p95) << "," << fmt("%.6f", p.bsld_mean) << "," << fmt("%.0f", p.cpu_seconds)
        << ",1,1," << fmt("%.6f", p.utilization) << "," << p.makespan << "," << fmt("%.6f", p.jain) << "\n";
    auto groups = [&](const char* scope, const std::vector<GroupStats>& gs) {
      for (const GroupStats& g : gs)
        out << head << scope << "," << csv_quote(g.name) << "," << g.jobs << "," << fmt("%.3f", g.wait_mean) << ","
            << fmt("%.3f", g.wait_p50) << "," << fmt("%.3f", g.wait_p95) << "," << fmt("%.6f", g.bsld_mean) << ","
            << fmt("%.0f", g.cpu_seconds) << "," << fmt("%.6f", g.delivered_share) << ","
            << fmt("%.6f", g.target_share) << ",,,\n";
    };
    groups("account", p.accounts);
    groups("user", p.users);
  }
  return out.str();
}

}  // namespace mfprio::host
