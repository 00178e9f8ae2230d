// window_pass.cpp - mfprio-bench-windows: the windowed families' store
// writes timed alone (accounting/store_windows.cpp), on SQLite and, with
// MFPRIO_BENCH_PG set, on PostgreSQL in the same run (bench/README.md).
//
// The charges are those the plugins plan (plugin/families/*/..._policy.cpp):
//   maui   daily windows (FSINTERVAL 24:00:00), 24 kept, each job charged to
//          its user, group, account, QOS, class and the total;
//   flux   weekly bins (half-life 7 days), 4 kept, each job charged to its
//          user:bank association, the association looked up by name (owner).
// Figures, medians of --reps (after one untimed warm-up that gives the
// running jobs their window_ledger rows, as in steady state):
//   decay   Store::apply_windows of one decay pass (PassClock, 300 s after the
//           last) charging the --running jobs up to it;
//   ends    Store::apply_windows of --ends finished jobs (new ids, started in
//           the last day) ending now, one transaction: their per-job cost.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#ifdef MFPRIO_BENCH_HAVE_PG
#include <libpq-fe.h>
#endif

#include "store.hpp"

namespace {

using mfprio::acct::AdminChanges;
using mfprio::acct::Store;
using mfprio::acct::WindowCharge;
using mfprio::acct::WindowCycle;
using Clock = std::chrono::steady_clock;

struct Opts {
  size_t running = 10000, ends = 100, users = 2000, reps = 7;
};

constexpr int64_t kT0 = 1'790'000'000;  // the first pass (2026)

// prefix + n (appended: GCC 12's -Wrestrict misfires on "lit" + to_string at -O2).
std::string named(const char* prefix, size_t n) {
  std::string s(prefix);
  s += std::to_string(n);
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The tree the flux charges name: user uN on account bN % 50 (partition "").
AdminChanges tree(const Opts& o) {
  AdminChanges ch;
  for (size_t b = 0; b < 50; ++b) {
    mfprio::acct::AccountRec a;
    a.name = named("b", b);
    a.parent = "root";
    a.shares = 1;
    ch.accounts.push_back(a);
  }
  for (size_t u = 0; u < o.users; ++u) {
    const std::string user = named("u", u), bank = named("b", u % 50);
    ch.users.push_back(mfprio::acct::UserRec{user, bank, false});
    mfprio::acct::AssocWrite w;
    w.rec.user = user;
    w.rec.account = bank;
    w.rec.shares = 1;
    ch.assocs.push_back(w);
  }
  return ch;
}

struct Family {
  const char* name;
  int64_t window, keep;
};
constexpr Family kMaui{"maui", 86400, 24};
constexpr Family kFlux{"flux", 7 * 86400, 4};

WindowCharge charge(const Family& f, const Opts& o, uint64_t job, int64_t start, int64_t until, bool ended) {
  WindowCharge ch;
  ch.job_id = job;
  ch.start_time = start;
  ch.until = until;
  ch.ended = ended;
  ch.rate = static_cast<double>(1 + job % 64);
  const size_t u = job % o.users;
  const std::string user = named("u", u), bank = named("b", u % 50);
  if (std::strcmp(f.name, "maui") == 0) {
    ch.credentials = {{"user", user},
                      {"group", named("g", u % 200)},
                      {"account", named("a", job % 500)},
                      {"qos", named("q", job % 4)},
                      {"class", named("c", job % 8)},
                      {"total", ""}};
  } else {
    ch.credentials = {{"usage", user + ":" + bank}};
    ch.owner_user = user;
    ch.owner_account = bank;
  }
  return ch;
}

WindowCycle cycle(const Family& f, int64_t now) {
  WindowCycle c;
  c.family = f.name;
  c.window_seconds = f.window;
  c.keep_windows = f.keep;
  c.drop_before = (now / f.window - f.keep + 1) * f.window;
  return c;
}

// Returns the median ms of the decay pass and of one job-end batch.
std::pair<double, double> measure(Store& s, const Family& f, const Opts& o, int64_t* now, uint64_t* next_end_id) {
  auto pass = [&](int64_t at) {
    WindowCycle c = cycle(f, at);
    c.pass = mfprio::acct::PassClock{};
    c.pass->now = at;
    for (uint64_t j = 1; j <= o.running; ++j)
      c.charges.push_back(charge(f, o, j, kT0 - static_cast<int64_t>(j * 8 % 86400), at, false));
    return c;
  };
  s.apply_windows(pass(*now));  // warm-up: the running jobs' ledger rows
  std::vector<double> decay_ms, end_ms;
  for (size_t r = 0; r < o.reps; ++r) {
    *now += 300;
    const WindowCycle c = pass(*now);
    auto t0 = Clock::now();
    s.apply_windows(c);
    decay_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    WindowCycle e = cycle(f, *now);
    for (size_t k = 0; k < o.ends; ++k) {
      const uint64_t id = (*next_end_id)++;
      e.charges.push_back(charge(f, o, id, *now - 3600 - static_cast<int64_t>(id % 80000), *now, true));
    }
    t0 = Clock::now();
    s.apply_windows(e);
    end_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return {median(decay_ms), median(end_ms)};
}

void run_backend(const char* backend, const std::string& location, const Opts& o) {
  auto s = Store::open(location);
  s->apply_admin(tree(o));
  int64_t now = kT0;
  uint64_t next_end_id = 1'000'000;
  for (const Family* f : {&kMaui, &kFlux}) {
    const auto [decay, end] = measure(*s, *f, o, &now, &next_end_id);
    std::printf("| %-10s | %-5s | decay pass charging %zu running jobs | %9.1f ms | %6.2f us/job |\n", backend,
                f->name, o.running, decay, decay * 1e3 / static_cast<double>(o.running));
    std::printf("| %-10s | %-5s | %zu job ends, one transaction          | %9.2f ms | %6.2f us/job |\n", backend,
                f->name, o.ends, end, end * 1e3 / static_cast<double>(o.ends));
    std::fflush(stdout);
  }
}

#ifdef MFPRIO_BENCH_HAVE_PG
// A database of the bench's own on MFPRIO_BENCH_PG's server (made, then
// dropped): its URI.
struct PgDb {
  std::string admin_uri, name, uri;
  explicit PgDb(const std::string& base) : admin_uri(base), name(named("mfprio_benchwin_", static_cast<size_t>(getpid()))) {
    exec("CREATE DATABASE " + name);
    const auto p = base.find("://");
    const auto slash = base.find_first_of("/?", p + 3);
    const auto q = base.find('?', slash == std::string::npos ? base.size() : slash);
    uri = base.substr(0, slash == std::string::npos ? base.size() : slash) + "/" + name +
          (q == std::string::npos ? "" : base.substr(q));
  }
  ~PgDb() {
    try {
      exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mfprio-bench-windows: %s (drop %s by hand)\n", e.what(), name.c_str());
    }
  }
  void exec(const std::string& sql) const {
    PGconn* c = PQconnectdb(admin_uri.c_str());
    PGresult* r = PQexec(c, sql.c_str());
    const bool ok = PQstatus(c) == CONNECTION_OK && PQresultStatus(r) == PGRES_COMMAND_OK;
    const std::string err = PQerrorMessage(c);
    PQclear(r);
    PQfinish(c);
    if (!ok) throw std::runtime_error(sql + ": " + err);
  }
  static std::string settings(const std::string& base) {
    PGconn* c = PQconnectdb(base.c_str());
    std::string out;
    for (const char* k : {"fsync", "synchronous_commit", "full_page_writes"}) {
      const char* v = PQparameterStatus(c, k);
      PGresult* r = v ? nullptr : PQexec(c, (std::string("SHOW ") + k).c_str());
      out += std::string(out.empty() ? "" : ", ") + k + " " +
             (v ? v : (PQresultStatus(r) == PGRES_TUPLES_OK ? PQgetvalue(r, 0, 0) : "?"));
      if (r) PQclear(r);
    }
    PQfinish(c);
    return out;
  }
};
#endif

bool take(const char* arg, const char* name, size_t* v) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(arg + n + 1, &end, 10);
  if (!*(arg + n + 1) || *end || x == 0) {
    std::fprintf(stderr, "mfprio-bench-windows: %s: not a count above 0\n", arg);
    std::exit(2);
  }
  *v = static_cast<size_t>(x);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Opts o;
  for (int i = 1; i < argc; ++i) {
    if (take(argv[i], "--running", &o.running) || take(argv[i], "--ends", &o.ends) ||
        take(argv[i], "--users", &o.users) || take(argv[i], "--reps", &o.reps))
      continue;
    std::fprintf(stderr, "usage: mfprio-bench-windows [--running=N] [--ends=N] [--users=N] [--reps=N]\n");
    return 2;
  }
  try {
    std::printf("| store      | family | figure | median | per job |\n|---|---|---|---|---|\n");
    const std::string dir = (std::filesystem::temp_directory_path() / named("mfprio-benchwin-", static_cast<size_t>(getpid())))
                                .string();
    std::filesystem::create_directories(dir);
    run_backend("SQLite", dir + "/acct.db", o);
    std::filesystem::remove_all(dir);
    const char* pg = std::getenv("MFPRIO_BENCH_PG");
    if (!pg || !*pg) {
      std::printf("PostgreSQL: not measured (MFPRIO_BENCH_PG, a libpq URI, is not set)\n");
      return 0;
    }
#ifdef MFPRIO_BENCH_HAVE_PG
    PgDb db(pg);
    run_backend(("PostgreSQL (" + PgDb::settings(pg) + ")").c_str(), db.uri, o);
#else
    std::printf("PostgreSQL: not measured (built without libpq)\n");
#endif
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mfprio-bench-windows: %s\n", e.what());
    return 1;
  }
  return 0;
}
