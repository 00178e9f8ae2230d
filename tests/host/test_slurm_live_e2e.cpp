// test_slurm_live_e2e.cpp - differential test against a real Slurm 22.05.
//
// tests/data/slurm-live/{fairtree,classic,variant,decay}/ hold what a live
// one-node Slurm 22.05.8 cluster (slurmctld + slurmdbd + slurmd,
// priority/multifactor) printed: sprio, sshare, sacctmgr, scontrol show job,
// its slurm.conf and its slurmctld.log (tests/data/slurm-live/README.md says
// how it was made; capture.sh makes it again).  No Slurm is needed here: the
// test rebuilds the same state for mfprio from those files alone and compares
// what the real mfprio-host (MFPRIO_HOST_BIN) over the real
// priority_multifactor.so prints with what Slurm printed.
//
// From the captures to mfprio's inputs:
//   - the store: `mfprio-acct import` of a JSON built from sacctmgr's
//     association list (accounts with parents and shares, users with shares
//     or `parent` and, where listed, Priority), sacctmgr's QOS list
//     (Priority, UsageFactor) and each user's RawUsage from `sshare -a -l -P`.
//     The captures used PriorityDecayHalfLife=0, so Slurm's usage is whole
//     CPU-seconds and the printed (truncated) RawUsage is the exact value.
//     The decay set turned decay on at a restart: its store starts from the
//     sshare taken just before (sshare_before_alP.txt) with the last decay at
//     Slurm's last pass before the restart, and one `mfprio-host decay` runs
//     to Slurm's last pass;
//   - the conf: the captured slurm.conf itself, included unchanged after
//     PluginDir and AccountingStorageLoc (Slurm's conf has no store path);
//   - the jobs: one JSON line per `scontrol show job` record: JobId, user,
//     Account, QOS, Partition, JobState/Reason (held), SubmitTime, AccrueTime
//     as `eligible` (Slurm 22.05 ages a job from its accrue time), NumNodes,
//     NumCPUs, the mem of TRES= (MB), Nice;
//   - the time: sprio prints the factors of the controller's last priority
//     pass, not of the moment sprio runs.  The pass's time is the timestamp
//     of the job's last "Job N priority:" line in slurmctld.log
//     (DebugFlags=Priority), given to mfprio-host as --now.
//
// Compared: sshare -a -l -P and sshare -a -l (every column but TRESRunMins,
// a deliberate difference), sprio (default), -n, -u, -l, -n -l and -w, each
// line, each column; every job's Priority= of scontrol show job (0 for the
// held one); in the decay set, the usage itself.  AGE (and so PRIORITY) may
// differ by the worth of one second of age, PriorityWeightAge /
// PriorityMaxAge: the pass reads the clock once when it starts, and the log
// stamps each line a little later, so a pass that starts just before a second
// boundary logs the next second.  Every other value must be equal to the
// character.
#include <gtest/gtest.h>
#include <time.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "run_process.hpp"
#include "test_util.hpp"

using mfprio::test::cells;
using mfprio::test::env_or_die;
using mfprio::test::fields;
using mfprio::test::lines;
using mfprio::test::ProcessResult;
using mfprio::test::run_process;
using mfprio::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(' '));
  s.erase(s.find_last_not_of(' ') + 1);
  return s;
}

// "2026-11-24T21:48:27" (the capture's local time zone was UTC: see
// capture_time.txt) -> epoch seconds; -1 for "Unknown" / "None".
int64_t slurm_time(const std::string& s) {
  struct tm tm = {};
  if (!strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return -1;
  return static_cast<int64_t>(timegm(&tm));
}

// The columns of a '|'-separated capture with a header line (-P output, whose
// last field has no '|' after it).
std::vector<std::map<std::string, std::string>> parsable(const std::string& text) {
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> head;
  for (const std::string& l : lines(text)) {
    std::vector<std::string> c = cells(l + "|");
    if (head.empty()) {
      head = c;
      continue;
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < head.size() && i < c.size(); ++i) row[head[i]] = c[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

// `scontrol show job` records: Key=Value words (values have no blanks in
// these captures), one map per blank-line-separated record.
std::vector<std::map<std::string, std::string>> scontrol_jobs(const std::string& text) {
  std::vector<std::map<std::string, std::string>> jobs;
  std::map<std::string, std::string> cur;
  for (const std::string& l : lines(text)) {
    if (trim(l).empty()) {
      if (!cur.empty()) jobs.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    for (const std::string& w : fields(l)) {
      const size_t eq = w.find('=');
      if (eq != std::string::npos && !cur.count(w.substr(0, eq))) cur[w.substr(0, eq)] = w.substr(eq + 1);
    }
  }
  if (!cur.empty()) jobs.push_back(std::move(cur));
  return jobs;
}

// "mem=8000M" in a TRES= list -> MB.
int64_t tres_mem_mb(const std::string& tres) {
  std::stringstream in(tres);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.compare(0, 4, "mem=") != 0) continue;
    double v = std::stod(item.substr(4));
    const char unit = item.back();
    if (unit == 'G') v *= 1024;
    if (unit == 'T') v *= 1024 * 1024;
    if (unit == 'K') v /= 1024;
    return static_cast<int64_t>(std::llround(v));
  }
  return 0;
}

struct Capture {
  std::string dir;
  std::vector<std::map<std::string, std::string>> jobs;  // scontrol show job
  std::map<int64_t, int64_t> pass_time;                  // job id -> its last priority pass
};

class SlurmLive : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    plugin_dir = env_or_die("MFPRIO_PLUGIN_BUILDDIR");
    MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_multifactor.so");
    cap.dir = env_or_die("MFPRIO_TEST_SRCDIR") + "/../data/slurm-live/" + GetParam();
    ASSERT_TRUE(fs::exists(cap.dir + "/slurm.conf")) << cap.dir;
    cap.jobs = scontrol_jobs(slurp(cap.dir + "/scontrol_jobs.txt"));
    ASSERT_GE(cap.jobs.size(), 8u);
    read_pass_times();
    decayed = fs::exists(cap.dir + "/sshare_before_alP.txt");
    make_store();
    make_conf();
    if (decayed) decay();
    make_jobs();
  }

  std::string file(const std::string& name) const { return slurp(cap.dir + "/" + name); }

  // The timestamp (seconds) of each job's last "Job N priority:" line.
  void read_pass_times() {
    for (const std::string& l : lines(file("slurmctld.log"))) {
      const size_t at = l.find("_get_priority_internal: Job ");
      if (l.size() < 21 || l[0] != '[' || at == std::string::npos) continue;
      const std::string rest = l.substr(at + 28);
      if (rest.find(" priority: ") == std::string::npos) continue;
      cap.pass_time[std::stoll(rest)] = slurm_time(l.substr(1, 19));
    }
  }

  void make_store() {
    // user -> RawUsage, whole CPU-seconds (no decay so far): the set's own
    // sshare, or for the decay set the one taken just before decay began.
    std::map<std::string, std::string> usage;
    for (const auto& r : parsable(file(decayed ? "sshare_before_alP.txt" : "sshare_alP.txt")))
      if (!r.at("User").empty()) usage[trim(r.at("Account")) + "/" + r.at("User")] = r.at("RawUsage");
    std::string accounts, users, qos;
    for (const auto& r : parsable(file("sacctmgr_assoc.txt"))) {
      const std::string& acct = r.at("Account");
      const std::string& user = r.at("User");
      const std::string share = r.at("Share") == "parent" ? "\"parent\"" : r.at("Share");
      if (user.empty()) {
        if (acct == "root") continue;  // the store's own root
        accounts += std::string(accounts.empty() ? "" : ",\n") + "{\"name\": \"" + acct + "\", \"parent\": \"" +
                    r.at("ParentName") + "\", \"shares\": " + share + "}";
      } else {
        const std::string key = acct + "/" + user;
        if (!usage.count(key)) ADD_FAILURE() << "sshare has no row for " << key;
        // The association's Priority (the assoc factor), when the capture lists it.
        const auto prio = r.find("Priority");
        const std::string priority =
            prio != r.end() && !prio->second.empty() ? ", \"priority\": " + prio->second : std::string();
        users += std::string(users.empty() ? "" : ",\n") + "{\"name\": \"" + user + "\", \"account\": \"" + acct +
                 "\", \"shares\": " + share + ", \"raw_usage\": " + usage[key] + priority + "}";
      }
    }
    for (const auto& r : parsable(file("sacctmgr_qos.txt")))
      qos += std::string(qos.empty() ? "" : ",\n") + "{\"name\": \"" + r.at("Name") +
             "\", \"priority\": " + r.at("Priority") + ", \"usage_factor\": " + r.at("UsageFactor") + "}";
    const std::string json = dir.write(
        "accounts.json", "{\"accounts\": [" + accounts + "],\n\"users\": [" + users + "],\n\"qos\": [" + qos + "]}\n");
    db = dir.path() + "/acct.db";
    ProcessResult r = run_process({env_or_die("MFPRIO_ACCT_BIN"), "--db", db, "import", json});
    ASSERT_EQ(r.status, 0) << r.err << "\n" << slurp(json);
  }

  // The decay set: Slurm's last pass before the restart that turned decay on
  // (t0; the usage then is sshare_before_alP.txt) and its last pass (t1),
  // from the log's "Job N priority:" stamps; and the usage at t1 as
  // `scontrol show assoc_mgr` prints it (UsageRaw, 2 decimals).
  void decay_passes(int64_t* t0, int64_t* t1, std::map<std::string, double>* slurm_usage) {
    *t0 = *t1 = -1;
    for (const std::string& l : lines(file("slurmctld.log"))) {
      if (l.size() < 21 || l[0] != '[') continue;
      if (l.find("slurmctld version ") != std::string::npos && l.find(" started on cluster") != std::string::npos)
        *t0 = *t1;  // the restart: the pass before it is where decay starts
      if (l.find("_get_priority_internal: Job ") != std::string::npos) *t1 = slurm_time(l.substr(1, 19));
    }
    if (!slurm_usage) return;
    // "ClusterName=live Account=theory UserName=alice(1001) ..." then
    // "    UsageRaw/Norm/Efctv=139.28/0.40/0.89".
    std::string key;
    for (const std::string& l : lines(file("assoc_mgr.txt"))) {
      const size_t u = l.find(" UserName="), raw = l.find("UsageRaw/Norm/Efctv=");
      if (l.compare(0, 12, "ClusterName=") == 0) {
        const std::string acct = fields(l).at(1).substr(8);
        key = u == std::string::npos || l[u + 10] == ' ' ? std::string()
                                                         : acct + "/" + l.substr(u + 10, l.find('(', u) - u - 10);
      } else if (raw != std::string::npos && !key.empty()) {
        (*slurm_usage)[key] = std::stod(l.substr(raw + 20));
      }
    }
  }

  // Our decay: the same usage at t0, one pass at t1 (mfprio's exponential;
  // Slurm's passes compose to one per-second factor, so one pass suffices).
  void decay() {
    int64_t t0 = 0, t1 = 0;
    decay_passes(&t0, &t1, nullptr);
    ASSERT_GT(t0, 0);
    ASSERT_GT(t1, t0);
    ProcessResult r = run_process({env_or_die("MFPRIO_ACCT_BIN"), "--db", db, "-i", "modify", "decay",
                                   "last_decay=" + std::to_string(t0), "last_reset=" + std::to_string(t0)});
    ASSERT_EQ(r.status, 0) << r.err;
    r = host({"--conf", conf, "decay", "--now", std::to_string(t1)});
    ASSERT_EQ(r.status, 0) << r.err;
  }

  void make_conf() {
    conf = dir.write("slurm.conf", "PluginDir=" + plugin_dir + "\nAccountingStorageLoc=" + db + "\nInclude " + cap.dir +
                                       "/slurm.conf\n");
  }

  void make_jobs() {
    std::string out;
    for (const auto& j : cap.jobs) {
      const std::string user = j.at("UserId").substr(0, j.at("UserId").find('('));
      const std::string reason = j.at("Reason");
      std::string state = j.at("JobState") == "RUNNING" ? "running" : "pending";
      if (reason == "JobHeldUser" || reason == "JobHeldAdmin") state = "held";
      const int64_t accrue = slurm_time(j.at("AccrueTime"));
      out += "{\"id\": " + j.at("JobId") + ", \"user\": \"" + user + "\", \"account\": \"" + j.at("Account") +
             "\", \"qos\": \"" + j.at("QOS") + "\", \"partition\": \"" + j.at("Partition") + "\", \"state\": \"" +
             state + "\", \"submit\": " + std::to_string(slurm_time(j.at("SubmitTime"))) +
             ", \"eligible\": " + std::to_string(accrue < 0 ? 0 : accrue) + ", \"nodes\": " + j.at("NumNodes") +
             ", \"cpus\": " + j.at("NumCPUs") + ", \"mem\": " + std::to_string(tres_mem_mb(j.at("TRES"))) +
             ", \"nice\": " + j.at("Nice") + "}\n";
    }
    jobs = dir.write("jobs.jsonl", out);
  }

  ProcessResult host(std::vector<std::string> args) {
    args.insert(args.begin(), env_or_die("MFPRIO_HOST_BIN"));
    return run_process(args);
  }

  // The time of the one pass every listed job's factors come from.
  int64_t pass_now() {
    std::set<int64_t> times;
    for (const auto& j : cap.jobs)
      if (j.at("Priority") != "0") times.insert(cap.pass_time.at(std::stoll(j.at("JobId"))));
    EXPECT_EQ(times.size(), 1u) << "the pending jobs were priced in different passes";
    return times.empty() ? 0 : *times.begin();
  }

  // One second of age in priority points and in the normalized factor.
  double age_second_weighted() const { return weight("PriorityWeightAge") / max_age(); }
  double max_age() const { return 3600.0; }  // PriorityMaxAge=1:00:00 (checked in ConfIsTheCapturedOne)
  double weight(const std::string& key) const {
    for (const std::string& l : lines(slurp(cap.dir + "/config_prio.txt")))
      if (trim(l.substr(0, l.find('='))) == key) return std::stod(l.substr(l.find('=') + 1));
    return 0;
  }

  // Compares Slurm's sprio text with ours line by line: equal, or equal but
  // for the AGE and PRIORITY columns, which may differ by one second of age.
  void compare_sprio(const std::string& name, const std::string& ours, bool normalized) {
    SCOPED_TRACE(GetParam() + "/" + name);
    const std::vector<std::string> want = lines(file(name)), got = lines(ours);
    ASSERT_EQ(got.size(), want.size()) << ours;
    ASSERT_GE(want.size(), 2u);
    const std::vector<std::string> head = fields(want[0]);
    for (size_t i = 0; i < want.size(); ++i) {
      if (got[i] == want[i]) continue;
      ++inexact_lines;
      const std::vector<std::string> w = fields(want[i]), g = fields(got[i]);
      ASSERT_EQ(g.size(), w.size()) << "ours:  " << got[i] << "\nslurm: " << want[i];
      EXPECT_EQ(got[i].size(), want[i].size()) << "ours:  " << got[i] << "\nslurm: " << want[i];
      for (size_t c = 0; c < w.size(); ++c) {
        if (g[c] == w[c]) continue;
        const std::string col = c < head.size() ? head[c] : "?";
        // Normalized: AGE one second / PriorityMaxAge; PRIORITY (priority /
        // (2^32-1), 8 decimals printed) one unit of its last digit, which a
        // few points can move.  Weighted: one second of age, plus 1 for the
        // truncation of the sum (PRIORITY) or %.0f's rounding (AGE).
        const double one = normalized ? (col == "AGE" ? 1.0 / max_age() : 1e-8) : age_second_weighted() + 1.0;
        EXPECT_TRUE(col == "AGE" || col == "PRIORITY") << col << ": ours " << g[c] << ", slurm " << w[c];
        EXPECT_LE(std::fabs(std::stod(g[c]) - std::stod(w[c])), one) << col << ": ours " << g[c] << ", slurm " << w[c];
      }
    }
  }

  Capture cap;
  TempDir dir;
  std::string plugin_dir, db, conf, jobs;
  int inexact_lines = 0;
  bool decayed = false;
};

TEST_P(SlurmLive, ConfIsTheCapturedOne) {
  // The capture's facts the comparisons rely on.
  EXPECT_NE(file("version.txt").find("slurm-wlm 22.05"), std::string::npos) << file("version.txt");
  const std::string prio = file("config_prio.txt");
  EXPECT_NE(prio.find("PriorityMaxAge          = 01:00:00"), std::string::npos) << prio;
  // No decay (usage in whole CPU-seconds), except in the decay set.
  EXPECT_NE(prio.find(decayed ? "PriorityDecayHalfLife   = 00:10:00" : "PriorityDecayHalfLife   = 00:00:00"),
            std::string::npos)
      << prio;
  EXPECT_NE(file("capture_time.txt").find("time zone of the captured timestamps: UTC"), std::string::npos);
  EXPECT_EQ(weight("PriorityWeightAge"), 10000);
  // mfprio-host reads the same conf: its weights are Slurm's (sprio -w).
  ProcessResult r = host({"--conf", conf, "sprio", "-w"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, file("sprio_w.txt"));
}

TEST_P(SlurmLive, SshareMatchesSlurm) {
  ProcessResult r = host({"--conf", conf, "sshare", "-a", "-l", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> want = lines(file("sshare_alP.txt")), got = lines(r.out);
  ASSERT_EQ(got.size(), want.size()) << r.out;
  EXPECT_EQ(got[0], want[0]);  // the header (LevelFS only under Fair Tree)
  for (size_t i = 1; i < want.size(); ++i) {
    std::vector<std::string> w = cells(want[i] + "|"), g = cells(got[i] + "|");
    ASSERT_EQ(g.size(), w.size()) << got[i];
    // TRESRunMins, the last column: Slurm lists every cluster TRES (all 0, no
    // job ran); mfprio-host's sshare has no running jobs and leaves it blank
    // (README, deliberate differences).
    EXPECT_NE(w.back().find("cpu=0"), std::string::npos) << want[i];
    EXPECT_EQ(g.back(), "") << got[i];
    w.pop_back();
    g.pop_back();
    EXPECT_EQ(g, w) << "ours:  " << got[i] << "\nslurm: " << want[i];
  }
  // The fixed-width layout (-l): the same text up to TRESRunMins (30 wide + a blank).
  r = host({"--conf", conf, "sshare", "-a", "-l"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> wl = lines(file("sshare_al.txt")), gl = lines(r.out);
  ASSERT_EQ(gl.size(), wl.size()) << r.out;
  for (size_t i = 0; i < wl.size(); ++i) {
    ASSERT_EQ(gl[i].size(), wl[i].size()) << "ours:  " << gl[i] << "\nslurm: " << wl[i];
    ASSERT_GT(wl[i].size(), 31u);
    EXPECT_EQ(gl[i].substr(0, gl[i].size() - 31), wl[i].substr(0, wl[i].size() - 31));
  }
}

TEST_P(SlurmLive, SprioMatchesSlurm) {
  const std::string now = std::to_string(pass_now());
  const struct {
    const char* file;
    std::vector<std::string> args;
    bool normalized;
  } views[] = {{"sprio.txt", {}, false},
               {"sprio_n.txt", {"-n"}, true},
               {"sprio_u.txt", {"-u", "alice,erin"}, false},
               {"sprio_l.txt", {"-l"}, false},
               {"sprio_nl.txt", {"-n", "-l"}, true}};
  for (const auto& v : views) {
    std::vector<std::string> args = {"--conf", conf, "--now", now, "sprio", "--job-file", jobs};
    args.insert(args.end(), v.args.begin(), v.args.end());
    ProcessResult r = host(args);
    ASSERT_EQ(r.status, 0) << v.file << ": " << r.err;
    compare_sprio(v.file, r.out, v.normalized);
  }
  // Record (not fail) when the one-second allowance was used.
  if (inexact_lines)
    std::printf("%s: %d sprio lines differ within one second of age\n", GetParam().c_str(), inexact_lines);
}

TEST_P(SlurmLive, EveryJobsPriorityIsScontrols) {
  // scontrol show job's Priority= for every job, the held one (0) too.
  const std::string now = std::to_string(pass_now());
  ProcessResult r = host({"--conf", conf, "--now", now, "sprio", "--job-file", jobs, "--all-states", "-o", "%i %r %Y"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, std::vector<int64_t>> ours;  // job id -> priority per partition
  for (const std::string& l : lines(r.out)) {
    const auto f = fields(l);
    if (f.size() == 3 && f[0] != "JOBID") ours[f[0]].push_back(std::stoll(f[2]));
  }
  size_t held = 0;
  for (const auto& j : cap.jobs) {
    const std::string& id = j.at("JobId");
    ASSERT_TRUE(ours.count(id)) << "job " << id << "\n" << r.out;
    const int64_t want = std::stoll(j.at("Priority"));
    if (want == 0) ++held;
    // A job in several partitions has one priority per partition; the
    // controller's job priority is the one of the partition its scheduler
    // looked at last, so it must be one of ours.
    int64_t best = -1;
    for (int64_t got : ours[id])
      if (best < 0 || std::llabs(got - want) < std::llabs(best - want)) best = got;
    EXPECT_LE(std::llabs(best - want), static_cast<int64_t>(age_second_weighted()) + 1)
        << "job " << id << ": ours " << best << ", slurm " << want;
  }
  EXPECT_EQ(held, 1u);
}

// The decay set only: Slurm's usage after its decay passes against the
// per-second formula the README names, ours against the exact exponential.
class SlurmLiveDecay : public SlurmLive {};

TEST_P(SlurmLiveDecay, DecayIsSlurmsWithTheDocumentedDifference) {
  ASSERT_TRUE(decayed) << "no sshare_before_alP.txt in " << cap.dir;
  int64_t t0 = 0, t1 = 0;
  std::map<std::string, double> slurm;  // account/user -> usage at t1 (assoc_mgr, 2 decimals)
  decay_passes(&t0, &t1, &slurm);
  // PriorityDecayHalfLife as the controller reports it (HH:MM:SS).
  double hl = 0;
  for (const std::string& l : lines(file("config_prio.txt")))
    if (l.compare(0, 21, "PriorityDecayHalfLife") == 0) {
      int h = 0, m = 0, sec = 0;
      ASSERT_EQ(std::sscanf(l.substr(l.find('=') + 1).c_str(), "%d:%d:%d", &h, &m, &sec), 3) << l;
      hl = h * 3600.0 + m * 60.0 + sec;
    }
  ASSERT_GT(hl, 0);
  const double dt = static_cast<double>(t1 - t0);
  // Our usage after the pass, at full precision (export prints %.17g).
  ProcessResult r = run_process({env_or_die("MFPRIO_ACCT_BIN"), "--db", db, "export"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, double> ours;
  for (const std::string& l : lines(r.out)) {
    auto str = [&](const std::string& key) {
      const size_t at = l.find("\"" + key + "\":\"");
      return at == std::string::npos
                 ? std::string()
                 : l.substr(at + key.size() + 4, l.find('"', at + key.size() + 4) - at - key.size() - 4);
    };
    const size_t u = l.find("\"raw_usage\":");
    if (u != std::string::npos) ours[str("account") + "/" + str("name")] = std::stod(l.substr(u + 12));
  }
  size_t checked = 0;
  for (const auto& row : parsable(file("sshare_before_alP.txt"))) {
    if (row.at("User").empty()) continue;
    const std::string key = trim(row.at("Account")) + "/" + row.at("User");
    const double u0 = std::stod(row.at("RawUsage"));
    ASSERT_TRUE(slurm.count(key) && ours.count(key)) << key << "\n" << r.out;
    // Slurm: per pass usage *= (1 - 0.693/hl)^seconds, so over the passes
    // (1 - 0.693/hl)^(t1 - t0); assoc_mgr prints 2 decimals.
    EXPECT_NEAR(slurm[key], u0 * std::pow(1.0 - 0.693 / hl, dt), 0.005 + 1e-9) << key;
    // mfprio: the exact exponential 2^(-(t1 - t0)/hl) (README, deliberate differences).
    EXPECT_NEAR(ours[key], u0 * std::exp2(-dt / hl), 1e-9 * (u0 + 1)) << key;
    if (u0 > 0) ++checked;
  }
  EXPECT_GE(checked, 5u);
  std::printf("decay over %.0f s, half-life %.0f s: Slurm's factor %.9f, mfprio's %.9f\n", dt, hl,
              std::pow(1.0 - 0.693 / hl, dt), std::exp2(-dt / hl));
}

INSTANTIATE_TEST_SUITE_P(Captures, SlurmLive, testing::Values("fairtree", "classic", "variant", "decay"));
INSTANTIATE_TEST_SUITE_P(Captures, SlurmLiveDecay, testing::Values("decay"));

}  // namespace
