// process.cpp - whole-process figures (process.hpp).  Each run is
// posix_spawn -> wait4: wall time from just before the spawn to just after
// the child is reaped, CPU time = the child's user + system (rusage).  The
// child's stdout goes to a file (so its bytes are really written and can be
// counted), stderr to another.
#include "process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

extern char** environ;

namespace mfprio::bench {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct RunResult {
  double wall_ms = 0, cpu_ms = 0;
  double maxrss_kb = 0;  // the child's peak RSS (ru_maxrss, KiB on Linux)
};

// Runs argv with stdout -> out_path, stderr -> err_path; throws on a failed start or exit.
RunResult run(const std::vector<std::string>& args, const std::string& out_path, const std::string& err_path) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  const auto t0 = Clock::now();
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error(args[0] + ": cannot start: " + std::strerror(rc));
  int status = 0;
  struct rusage ru {};
  if (wait4(pid, &status, 0, &ru) != pid) throw std::runtime_error(args[0] + ": wait4 failed");
  RunResult r;
  r.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  r.cpu_ms = (double(ru.ru_utime.tv_sec) + double(ru.ru_stime.tv_sec)) * 1e3 +
             (double(ru.ru_utime.tv_usec) + double(ru.ru_stime.tv_usec)) / 1e3;
  r.maxrss_kb = double(ru.ru_maxrss);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream e(err_path);
    std::string msg((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
    if (msg.size() > 400) msg.resize(400);
    throw std::runtime_error(args[1 < args.size() ? args.size() - 1 : 0] + " (" + args[0] + ") failed: " + msg);
  }
  return r;
}

// Writes the multifactor conf for `store` to `path`.
void write_conf(const std::string& path, const std::vector<std::pair<std::string, std::string>>& kv,
                const std::string& store) {
  std::ofstream c(path);
  for (const auto& [k, v] : kv) c << k << "=" << v << "\n";
  c << "AccountingStorageLoc=" << store << "\n";
  if (!c) throw std::runtime_error(path + ": cannot write");
}

// A fresh copy of `from` at `to` (and no stale WAL next to it).
void copy_store(const std::string& from, const std::string& to) {
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(to + ext);
  std::filesystem::copy_file(from, to);
}

}  // namespace

ProcessFigure run_process_figures(const ProcessInputs& in) {
  ProcessFigure fig;
  try {
    if (access(in.host_bin.c_str(), X_OK) != 0) throw std::runtime_error(in.host_bin + ": not built");
    const std::string store = in.dir + "/process.db";
    copy_store(in.base_store, store);
    const std::string conf = in.dir + "/process.conf";
    write_conf(conf, in.conf, store);
    const std::string out = in.dir + "/process.out", err = in.dir + "/process.err";
    int64_t now = in.now;
    auto decay = [&] {
      now += 300;
      return run({in.host_bin, "--conf", conf, "--plugin-dir", in.plugin_dir, "decay", "--now", std::to_string(now)},
                 out, err);
    };
    auto sshare = [&] {
      return run({in.host_bin, "--conf", conf, "--plugin-dir", in.plugin_dir, "--now", std::to_string(now),
                  "sshare", "-a"},
                 out, err);
    };
    decay();  // warm-up (page cache; sets last_decay)
    sshare();
    {
      std::ifstream o(out, std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(o)), std::istreambuf_iterator<char>());
      fig.sshare_bytes = text.size();
      fig.sshare_lines = size_t(std::count(text.begin(), text.end(), '\n'));
    }
    std::vector<double> dw, dc, sw, sc, ratio;
    for (int r = 0; r < std::max(1, in.reps); ++r) {
      const RunResult d = decay();
      const RunResult s = sshare();
      dw.push_back(d.wall_ms);
      dc.push_back(d.cpu_ms);
      sw.push_back(s.wall_ms);
      sc.push_back(s.cpu_ms);
      ratio.push_back(s.wall_ms / d.wall_ms);
    }
    fig.decay_ms = median(dw);
    fig.decay_cpu_ms = median(dc);
    fig.sshare_ms = median(sw);
    fig.sshare_cpu_ms = median(sc);
    fig.ratio = median(ratio);
    fig.runs = int(dw.size());
  } catch (const std::exception& e) {
    fig.error = e.what();
  }
  return fig;
}

ColdFigure run_cold_figures(const ColdInputs& in) {
  ColdFigure fig;
  fig.assocs = in.assocs;
  try {
    for (const std::string* b : {&in.host_bin, &in.floor_bin, &in.peak_bin})
      if (access(b->c_str(), X_OK) != 0) throw std::runtime_error(*b + ": not built");
    const std::string base = in.dir + "/cold-" + in.tag;
    const std::string store = base + ".db", empty = base + "-empty.db";
    copy_store(in.base_store, store);
    copy_store(in.empty_store, empty);
    const std::string conf = base + ".conf", empty_conf = base + "-empty.conf";
    write_conf(conf, in.conf, store);
    write_conf(empty_conf, in.conf, empty);
    const std::string out = base + ".out", err = base + ".err";
    int64_t now = in.now;
    auto decay_args = [&](const std::string& c) {
      now += 300;
      return std::vector<std::string>{in.host_bin, "--conf", c, "--plugin-dir", in.plugin_dir,
                                      "decay", "--now", std::to_string(now)};
    };
    auto decay = [&](const std::string& c) { return run(decay_args(c), out, err); };
    auto floor = [&] { return run({in.floor_bin, store}, out, err); };
    // The peak RSS of a decay, taken by the launcher (its own wait4).
    const std::string peak_file = base + ".peak";
    auto decay_peak_kb = [&](const std::string& c) {
      std::vector<std::string> args = decay_args(c);
      args.insert(args.begin(), {in.peak_bin, peak_file});
      run(args, out, err);
      std::ifstream p(peak_file);
      double kb = 0;
      if (!(p >> kb) || kb <= 0) throw std::runtime_error(peak_file + ": no peak RSS written");
      return kb;
    };
    // Warm-up: the first decay writes the tree cache (as the first start
    // after a hierarchy change does), then the page cache holds both stores.
    decay(conf);
    decay(empty_conf);
    floor();
    std::vector<double> dw, dc, fw, fc, ratio, peak, empty_peak;
    for (int r = 0; r < std::max(1, in.reps); ++r) {
      const RunResult d = decay(conf);
      const RunResult f = floor();
      dw.push_back(d.wall_ms);
      dc.push_back(d.cpu_ms);
      fw.push_back(f.wall_ms);
      fc.push_back(f.cpu_ms);
      ratio.push_back(d.wall_ms / f.wall_ms);
      peak.push_back(decay_peak_kb(conf));
      empty_peak.push_back(decay_peak_kb(empty_conf));
    }
    fig.decay_ms = median(dw);
    fig.decay_cpu_ms = median(dc);
    fig.floor_ms = median(fw);
    fig.floor_cpu_ms = median(fc);
    fig.ratio = median(ratio);
    fig.peak_kb = median(peak);
    fig.empty_peak_kb = median(empty_peak);
    const double n = double(in.assocs) - double(in.empty_assocs);
    fig.bytes_per_assoc = n > 0 ? (fig.peak_kb - fig.empty_peak_kb) * 1024.0 / n : 0;
    fig.runs = int(dw.size());
  } catch (const std::exception& e) {
    fig.error = e.what();
  }
  return fig;
}

}  // namespace mfprio::bench
