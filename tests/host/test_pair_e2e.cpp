// test_pair_e2e.cpp - a controller pair (issue 21, item 3): two mfprio-host
// processes (the real binary's `loop`, the real priority_multifactor.so) on
// one store, running the same job stream on one clock; one of them is
// SIGKILLed at random moments and restarted (on PostgreSQL every other kill
// also drops both hosts' connections with pg_terminate_backend).  At the
// end the store must hold exactly what one uninterrupted host leaves:
//   - without decay, the charged usage is the jobs' CPU-seconds (each job
//     charged once, nothing lost);
//   - with decay, every association's usage and the last pass time equal a
//     reference store's, where one host ran the stream without a kill (a
//     period decayed twice or not at all, or a charge landing on the wrong
//     side of a pass, shows as a difference).
// The store is the run's backend (tests/support/store_location.hpp).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "run_process.hpp"
#include "store.hpp"
#include "store_location.hpp"
#include "test_util.hpp"

namespace {

using mfprio::test::ProcessResult;
using mfprio::test::TempDir;

constexpr int64_t kT0 = 1700000000;   // simulated start
constexpr int64_t kPeriod = 300;      // PriorityCalcPeriod=5
constexpr int64_t kSpan = 6 * 3600;   // jobs start and end within it
constexpr int64_t kUntil = kT0 + kSpan + 1800;

double wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct Job {
  uint64_t id;
  std::string user;
  int64_t start, end;
  uint32_t cpus;
};

// The job stream: `n` jobs of four users, fixed by the seed.
std::vector<Job> make_jobs(int n, unsigned seed) {
  std::mt19937 rng(seed);
  const char* users[] = {"u1", "u2", "u3", "u4"};
  std::vector<Job> jobs;
  for (int i = 1; i <= n; ++i) {
    const int64_t start = kT0 + static_cast<int64_t>(rng() % (kSpan - 3600));
    const int64_t run = 60 + static_cast<int64_t>(rng() % 3500);
    const auto cpus = static_cast<uint32_t>(1 + rng() % 16);
    jobs.push_back(Job{static_cast<uint64_t>(i), users[rng() % 4], start, start + run, cpus});
  }
  return jobs;
}

// One host process: fork + exec, stdout and stderr appended to `log`.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ControllerPair : public testing::Test {
 protected:
  void SetUp() override {
    plugin_dir = mfprio::test::env_or_die("MFPRIO_PLUGIN_BUILDDIR");
    host_bin = mfprio::test::env_or_die("MFPRIO_HOST_BIN");
    MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_multifactor.so");
    jobs = make_jobs(80, 21);
    std::ofstream out(dir.file("jobs.jsonl"));
    for (const Job& j : jobs)
      out << "{\"id\": " << j.id << ", \"user\": \"" << j.user << "\", \"state\": \"running\", \"start\": " << j.start
          << ", \"end\": " << j.end << ", \"cpus\": " << j.cpus << "}\n";
  }

  // A store `name` holding the four users' associations, and a conf on it.
  std::string store_and_conf(const std::string& name, const std::string& half_life, std::string* loc) {
    *loc = mfprio::test::store_location(dir, name + ".db");
    const std::string json = dir.write(
        name + ".json",
        "{\"accounts\": [{\"name\": \"a\", \"parent\": \"root\", \"shares\": 1},"
        " {\"name\": \"b\", \"parent\": \"root\", \"shares\": 3}],"
        " \"users\": [{\"name\": \"u1\", \"account\": \"a\", \"default\": true},"
        " {\"name\": \"u2\", \"account\": \"a\", \"default\": true},"
        " {\"name\": \"u3\", \"account\": \"b\", \"default\": true},"
        " {\"name\": \"u4\", \"account\": \"b\", \"default\": true}]}");
    const ProcessResult r = mfprio::test::run_acct({"--db", *loc, "import", json});
    EXPECT_EQ(r.status, 0) << r.err;
    return dir.write(name + ".conf", "PriorityType=priority/multifactor\nPluginDir=" + plugin_dir +
                                         "\nAccountingStorageLoc=" + *loc + "\nPriorityDecayHalfLife=" + half_life +
                                         "\nPriorityCalcPeriod=5\nPriorityWeightFairshare=10000\n");
  }

  std::vector<std::string> loop_args(const std::string& conf, double speed, double origin) {
    char o[64];
    std::snprintf(o, sizeof o, "%.3f", origin);
    return {host_bin, "--conf", conf, "loop", "--job-file", dir.file("jobs.jsonl"), "--start", std::to_string(kT0),
            "--until", std::to_string(kUntil), "--speed", std::to_string(speed), "--origin", o};
  }

  // One host without a kill, as fast as it goes.
  void run_reference(const std::string& conf) {
    const ProcessResult r = mfprio::test::run_process(loop_args(conf, 1e9, wall_now()));
    ASSERT_EQ(r.status, 0) << r.out << r.err;
  }

  // Two hosts on `conf`'s store over about `wall_seconds`, one of them
  // killed and restarted every 0.2-1.2 s; both must finish with status 0.
  void run_pair(const std::string& conf, const std::string& loc, double wall_seconds, int* kills) {
    const double speed = static_cast<double>(kUntil - kT0) / wall_seconds;
    const double origin = wall_now() + 0.5;
    const std::vector<std::string> args = loop_args(conf, speed, origin);
    const std::string logs[2] = {dir.file("host0.log"), dir.file("host1.log")};
    pid_t pids[2] = {spawn(args, logs[0]), spawn(args, logs[1])};
    int status[2] = {-1, -1};
    std::mt19937 rng(std::random_device{}());
    const double stop_killing = origin + wall_seconds - 0.5;
    *kills = 0;
    while (wall_now() < stop_killing) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200 + rng() % 1000));
      const int i = static_cast<int>(rng() % 2);
      if (pids[i] <= 0) continue;
      if (waitpid(pids[i], &status[i], WNOHANG) == pids[i]) {  // finished: the other made the last pass
        pids[i] = 0;
        continue;
      }
      kill(pids[i], SIGKILL);
      waitpid(pids[i], &status[i], 0);
      ++*kills;
      if (mfprio::test::on_postgresql() && *kills % 2 == 0) drop_connections(loc);
      pids[i] = spawn(args, logs[i]);
    }
    for (int i = 0; i < 2; ++i) {
      if (pids[i] <= 0) {  // it finished before the kills stopped
        EXPECT_TRUE(WIFEXITED(status[i]) && WEXITSTATUS(status[i]) == 0)
            << "host " << i << " status " << status[i] << ": " << slurp(logs[i]);
        continue;
      }
      // The last pass is due at origin + wall_seconds; a restarted host catches up.
      const double deadline = wall_now() + wall_seconds + 120;
      while (waitpid(pids[i], &status[i], WNOHANG) == 0 && wall_now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (wall_now() >= deadline) {
        kill(pids[i], SIGKILL);
        waitpid(pids[i], &status[i], 0);
        ADD_FAILURE() << "host " << i << " did not finish: " << slurp(logs[i]);
        continue;
      }
      EXPECT_TRUE(WIFEXITED(status[i]) && WEXITSTATUS(status[i]) == 0)
          << "host " << i << " status " << status[i] << ": " << slurp(logs[i]);
    }
  }

  // pg_terminate_backend on every other connection to the store's database.
  static void drop_connections(const std::string& uri) {
    PGconn* c = PQconnectdb(uri.c_str());
    ASSERT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
    PGresult* r = PQexec(c,
                         "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE datname = current_database() AND pid <> pg_backend_pid()");
    EXPECT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQerrorMessage(c);
    PQclear(r);
    PQfinish(c);
  }

  static std::map<std::string, double> usage_by_user(const std::string& loc) {
    mfprio::acct::OpenOptions ro;
    ro.read_only = true;
    ro.create = false;
    std::map<std::string, double> out;
    for (const auto& a : mfprio::acct::Store::open(loc, ro)->load().assocs) out[a.user] = a.raw_usage;
    return out;
  }
  static int64_t last_decay(const std::string& loc) {
    mfprio::acct::OpenOptions ro;
    ro.read_only = true;
    ro.create = false;
    return mfprio::acct::Store::open(loc, ro)->decay_state().last_decay;
  }

  TempDir dir;
  std::string plugin_dir, host_bin;
  std::vector<Job> jobs;
};

// The last pass of the loop: the first grid point at or after kUntil.
int64_t last_pass() { return kT0 + (kUntil - kT0 + kPeriod - 1) / kPeriod * kPeriod; }

TEST_F(ControllerPair, WithoutDecayEveryJobIsChargedExactlyOnceThroughKills) {
  std::string loc;
  const std::string conf = store_and_conf("nodecay", "999999999999-0", &loc);  // the family's no_decay_conf
  int kills = 0;
  run_pair(conf, loc, 10, &kills);
  EXPECT_GE(kills, 4);
  std::map<std::string, double> expected;
  for (const Job& j : jobs) expected[j.user] += static_cast<double>(j.cpus) * static_cast<double>(j.end - j.start);
  const std::map<std::string, double> got = usage_by_user(loc);
  for (const auto& [user, want] : expected) {
    ASSERT_TRUE(got.count(user)) << user;
    EXPECT_NEAR(got.at(user), want, want * 1e-6) << user << " after " << kills << " kills";
  }
  EXPECT_EQ(last_decay(loc), last_pass());
}

TEST_F(ControllerPair, WithDecayTheStoreEndsAsOneUninterruptedHostLeavesIt) {
  std::string ref, loc;
  const std::string ref_conf = store_and_conf("ref", "0-2", &ref);  // a half-life of two hours
  run_reference(ref_conf);
  const std::string conf = store_and_conf("pair", "0-2", &loc);
  int kills = 0;
  run_pair(conf, loc, 10, &kills);
  EXPECT_GE(kills, 4);
  const std::map<std::string, double> want = usage_by_user(ref), got = usage_by_user(loc);
  ASSERT_EQ(want.size(), 4u);
  for (const auto& [user, w] : want) {
    ASSERT_TRUE(got.count(user)) << user;
    EXPECT_GT(w, 0) << user;
    EXPECT_NEAR(got.at(user), w, w * 1e-9) << user << " after " << kills << " kills";
  }
  EXPECT_EQ(last_decay(ref), last_pass());
  EXPECT_EQ(last_decay(loc), last_pass());
}

}  // namespace
