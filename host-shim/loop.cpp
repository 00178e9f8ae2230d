// loop.cpp - `mfprio-host loop` (loop.hpp): the calc-period loop of a
// controller over a job stream with start and end times.
#include "loop.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <ostream>
#include <string>
#include <thread>

namespace mfprio::host {
namespace {

// Sleeps until the wall clock reaches `wall` (epoch seconds).
void sleep_until_wall(double wall) {
  for (;;) {
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (now >= wall) return;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(wall - now, 1.0)));
  }
}

// The store's last decay pass as the plugin last saw it (0: unknown).
int64_t last_pass(const Plugin& plugin) {
  if (!plugin.ops().plugin_stats) return 0;
  mfprio_stats_t st{};
  st.struct_size = sizeof st;
  return plugin.ops().plugin_stats(&st) == MFPRIO_OK ? st.last_decay : 0;
}

// Runs `step` until it returns MFPRIO_OK or `done_elsewhere` says another
// host did it, at most 1 + retries times, a second apart; each failure is
// printed.  False when every try failed.
bool with_retries(const LoopOptions& opt, const Plugin& plugin, const std::string& what,
                  const std::function<int()>& step, const std::function<bool()>& done_elsewhere) {
  for (int attempt = 0;; ++attempt) {
    const int rc = step();
    if (rc == MFPRIO_OK || done_elsewhere()) return true;
    std::fprintf(stderr, "mfprio-host: loop: %s: %s (%s)%s\n", what.c_str(), plugin.last_error().c_str(),
                 status_name(rc), attempt < opt.retries ? "; retrying in 1 s" : "; giving up");
    if (attempt >= opt.retries) return false;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace

int run_loop(const std::vector<JobRecord>& records, const LoopOptions& opt, Plugin& plugin, Clock* clock,
             std::ostream& out) {
  const mfprio_ops_t& ops = plugin.ops();
  int64_t prev = INT64_MIN;
  for (int64_t k = 1;; ++k) {
    const int64_t t = opt.start + k * opt.period;
    if (opt.speed > 0) sleep_until_wall(opt.origin + static_cast<double>(t - opt.start) / opt.speed);
    // A pass the store already has (the other host's; a restart's catch-up)
    // is skipped with the job ends before it: that pass's host charged them.
    const auto passed = [&] { return last_pass(plugin) >= t; };
    if (passed()) {
      prev = t;
      if (t >= opt.until) return 0;
      continue;
    }
    clock->fixed = true;
    clock->now = t;
    std::vector<mfprio_job_t> ended, running;
    std::vector<int64_t> ends;
    for (const JobRecord& r : records) {
      const int64_t end = r.spec->end;
      if (end > 0 && end > prev && end <= t) {
        ended.push_back(r.job);
        ends.push_back(end);
      } else if (r.spec->start <= t && (end == 0 || end > t)) {
        running.push_back(r.job);
      }
    }
    const std::string at = " at " + std::to_string(t);
    if (!ended.empty() && ops.job_end_batch) {
      if (!with_retries(opt, plugin, "job_end_batch" + at,
                        [&] { return ops.job_end_batch(ended.data(), ended.size(), ends.data()); }, passed))
        return 1;
    } else if (ops.job_end) {
      for (size_t i = 0; i < ended.size(); ++i)
        if (!with_retries(opt, plugin, "job_end of job " + std::to_string(ended[i].job_id) + at,
                          [&] { return ops.job_end(&ended[i], ends[i]); }, passed))
          return 1;
    }
    if (!with_retries(opt, plugin, "decay" + at, [&] {
          return ops.decay(t, running.empty() ? nullptr : running.data(), running.size());
        }, passed))
      return 1;
    if (opt.report_passes)
      out << "loop: pass at " << t << ": ended " << ended.size() << ", running " << running.size() << std::endl;
    prev = t;
    if (t >= opt.until) return 0;
  }
}

}  // namespace mfprio::host
