// flux_usage.cpp - see flux_usage.hpp.
#include "flux_usage.hpp"

#include <algorithm>
#include <cmath>

#include "stable_order.hpp"

namespace mfprio::flux {

double job_usage_value(uint32_t nnodes, uint32_t ncores, uint32_t ngpus, double t_run,
                       double t_inactive, const UsageSettings& s) {
  const double secs = t_inactive - t_run;
  if (!(secs > 0.0)) return 0.0;
  const double rate = static_cast<double>(nnodes) * s.node_weight +
                      static_cast<double>(ncores) * s.core_weight +
                      static_cast<double>(ngpus) * s.gpu_weight;
  // Python's round(x, 5); halves are rare enough at 5 decimals that the
  // difference between its exact-decimal rounding and this is immaterial.
  return std::round(rate * secs * 1e5) / 1e5;
}

UsageBins UsageBins::make(int n, int64_t period_end) {
  UsageBins u;
  u.bins.assign(static_cast<size_t>(std::max(n, 1)), 0.0);
  u.period_end = period_end;
  return u;
}

int bin_index(int64_t t, int64_t period_end, int64_t half_life, int nbins) {
  if (half_life <= 0 || nbins <= 0) return -1;
  if (t > period_end - half_life) return 0;
  // t <= end - H: age in whole periods, (end - t) / H, exact in integers.
  const int64_t i = (period_end - t) / half_life;
  return i < nbins ? static_cast<int>(i) : -1;
}

int64_t advance(UsageBins* u, int64_t now, int64_t half_life) {
  if (half_life <= 0 || now <= u->period_end) return 0;
  const int64_t k = (now - u->period_end + half_life - 1) / half_life;  // ceil
  const size_t n = u->bins.size();
  if (k >= static_cast<int64_t>(n)) {
    std::fill(u->bins.begin(), u->bins.end(), 0.0);
  } else {
    const size_t s = static_cast<size_t>(k);
    std::move_backward(u->bins.begin(), u->bins.end() - s, u->bins.end());
    std::fill(u->bins.begin(), u->bins.begin() + s, 0.0);
  }
  u->period_end += k * half_life;
  return k;
}

void charge_at(UsageBins* u, int64_t t, double amount, int64_t half_life) {
  if (!(amount > 0.0)) return;
  const int i = bin_index(t, u->period_end, half_life, static_cast<int>(u->bins.size()));
  if (i >= 0) u->bins[static_cast<size_t>(i)] += amount;
}

void charge_interval(UsageBins* u, double t0, double t1, double rate, int64_t half_life) {
  if (!(t1 > t0) || !(rate > 0.0) || half_life <= 0) return;
  const double H = static_cast<double>(half_life);
  const double end = static_cast<double>(u->period_end);
  // The part after the current period's start (including any future part).
  const double cur_start = end - H;
  if (t1 > cur_start) u->bins[0] += rate * (t1 - std::max(t0, cur_start));
  for (size_t i = 1; i < u->bins.size(); ++i) {
    const double hi = end - static_cast<double>(i) * H;  // bin i covers (hi - H, hi]
    const double lo = hi - H;
    const double a = std::max(t0, lo), b = std::min(t1, hi);
    if (b > a) u->bins[i] += rate * (b - a);
    if (t0 >= lo) break;
  }
}

double decayed_usage(const UsageBins& u, double decay_factor) {
  const std::vector<double> w = bin_weights(static_cast<int>(u.bins.size()), decay_factor);
  double sum = 0.0;
  for (size_t i = 0; i < u.bins.size(); ++i) sum += u.bins[i] * w[i];
  return sum;
}

std::vector<double> bin_weights(int n, double decay_factor) {
  std::vector<double> w(static_cast<size_t>(std::max(n, 0)));
  double f = 1.0;
  for (double& x : w) {
    x = f;
    f *= decay_factor;
  }
  return w;
}

double decayed_usage_sparse(std::vector<std::pair<int32_t, double>>* entries, const std::vector<double>& weights) {
  mfprio::stable_order(entries->begin(), entries->end(),
                   [](const std::pair<int32_t, double>& a, const std::pair<int32_t, double>& b) { return a.first < b.first; });
  double sum = 0.0;
  for (size_t i = 0; i < entries->size();) {
    const int32_t bin = (*entries)[i].first;
    double b = 0.0;
    for (; i < entries->size() && (*entries)[i].first == bin; ++i) b += (*entries)[i].second;
    if (bin >= 0 && static_cast<size_t>(bin) < weights.size()) sum += b * weights[static_cast<size_t>(bin)];
  }
  return sum;
}

}  // namespace mfprio::flux
