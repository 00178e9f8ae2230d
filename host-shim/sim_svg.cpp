// sim_svg.cpp - see sim_svg.hpp.  Layout, 1000 px wide, top to bottom:
//  1. the policies compared on common axes: the cumulative distribution of
//     waits (x = log10(1 + wait), one scale for every policy) and of bounded
//     slowdowns (x = log10(slowdown)), one line per policy, a legend below;
//  2. per user (then per account, when there are several) each policy's mean
//     wait on one log scale, the 40 names with the most jobs;
//  3. per policy: each account's share of the CPU time delivered so far
//     against its target (dashed; only with several accounts) and the
//     fraction of processors busy, over days since the first submit.
// Legends sit below their panels, never beside them; colours never repeat
// (a fixed palette, then hues spread by the golden angle).
#include "sim_svg.hpp"

#include "stable_order.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace mfprio::host {
namespace {

constexpr double kW = 1000, kPanelW = 380, kPanelH = 180;
constexpr double kLeftX = 90, kRightX = 580;
constexpr size_t kMaxPoints = 400;  // points per line
constexpr size_t kMaxNames = 40;    // names in a per-user / per-account panel
constexpr size_t kMaxLegend = 48;   // accounts named under a share panel
const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr size_t kPaletteN = sizeof kPalette / sizeof kPalette[0];

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

// Colour i: the palette, then hue i x 137.508 degrees (the golden angle) at
// a saturation and value that change every 360 colours, as #rrggbb.
std::string colour(size_t i) {
  if (i < kPaletteN) return kPalette[i];
  const double h = std::fmod(static_cast<double>(i) * 137.508, 360.0) / 60.0;
  const size_t band = (i - kPaletteN) / 360;
  const double s = 0.85 - 0.2 * static_cast<double>(band % 3), v = 0.8 - 0.15 * static_cast<double>((band / 3) % 3);
  const double c = v * s, x = c * (1 - std::fabs(std::fmod(h, 2.0) - 1)), m = v - c;
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(h) % 6) {
    case 0: r = c, g = x; break;
    case 1: r = x, g = c; break;
    case 2: g = c, b = x; break;
    case 3: g = x, b = c; break;
    case 4: r = x, b = c; break;
    default: r = c, b = x; break;
  }
  char out[8];
  std::snprintf(out, sizeof out, "#%02x%02x%02x", static_cast<int>(std::lround((r + m) * 255)),
                static_cast<int>(std::lround((g + m) * 255)), static_cast<int>(std::lround((b + m) * 255)));
  return out;
}

struct Panel {
  double x, y;  // top left
};

// Frame, title above, x label below the tick labels, y label left of the
// y tick labels.
void frame(std::ostringstream& o, Panel p, const std::string& title, const std::string& xlabel,
           const std::string& ylabel) {
  o << "<rect x=\"" << num(p.x) << "\" y=\"" << num(p.y) << "\" width=\"" << num(kPanelW) << "\" height=\""
    << num(kPanelH) << "\" fill=\"none\" stroke=\"#444\"/>\n";
  o << "<text x=\"" << num(p.x + kPanelW / 2) << "\" y=\"" << num(p.y - 8)
    << "\" text-anchor=\"middle\" font-size=\"12\">" << esc(title) << "</text>\n";
  o << "<text x=\"" << num(p.x + kPanelW / 2) << "\" y=\"" << num(p.y + kPanelH + 30)
    << "\" text-anchor=\"middle\" font-size=\"11\">" << esc(xlabel) << "</text>\n";
  const double lx = p.x - 48, ly = p.y + kPanelH / 2;
  o << "<text x=\"" << num(lx) << "\" y=\"" << num(ly) << "\" font-size=\"11\" transform=\"rotate(-90 " << num(lx)
    << " " << num(ly) << ")\" text-anchor=\"middle\">" << esc(ylabel) << "</text>\n";
}

void xtick(std::ostringstream& o, double x, double y, const std::string& label) {
  o << "<line x1=\"" << num(x) << "\" y1=\"" << num(y) << "\" x2=\"" << num(x) << "\" y2=\"" << num(y + 4)
    << "\" stroke=\"#444\"/><text x=\"" << num(x) << "\" y=\"" << num(y + 14)
    << "\" font-size=\"9\" text-anchor=\"middle\">" << esc(label) << "</text>\n";
}

void ytick(std::ostringstream& o, double x, double y, const std::string& label) {
  o << "<line x1=\"" << num(x - 4) << "\" y1=\"" << num(y) << "\" x2=\"" << num(x) << "\" y2=\"" << num(y)
    << "\" stroke=\"#444\"/><text x=\"" << num(x - 6) << "\" y=\"" << num(y + 3)
    << "\" font-size=\"9\" text-anchor=\"end\">" << esc(label) << "</text>\n";
}

void fraction_ticks(std::ostringstream& o, Panel p) {
  const char* const kLabels[] = {"0", "0.25", "0.5", "0.75", "1"};
  for (int i = 0; i <= 4; ++i) ytick(o, p.x, p.y + kPanelH - kPanelH * i / 4.0, kLabels[i]);
}

// Log-time ticks on [0, lmax] of log10(1 + seconds), along x or y.
void time_ticks(std::ostringstream& o, Panel p, double lmax, bool along_x) {
  const char* const label[] = {"0", "1m", "1h", "1d", "10d", "100d", "1000d"};
  const double secs[] = {0, 60, 3600, 86400, 864000, 8640000, 86400000};
  for (int i = 0; i < 7; ++i) {
    const double f = std::log10(1 + secs[i]) / lmax;
    if (f > 1.0001) break;
    if (along_x) xtick(o, p.x + kPanelW * f, p.y + kPanelH, label[i]);
    else ytick(o, p.x, p.y + kPanelH * (1 - f), label[i]);
  }
}

// Legend rows below a panel block, starting at y; returns the y after it.
double legend(std::ostringstream& o, double y, const std::vector<std::string>& names, size_t shown, double x0) {
  const double col_w = 150;
  const size_t per_row = static_cast<size_t>((kW - x0 - 20) / col_w);
  size_t k = 0;
  for (; k < names.size() && k < shown; ++k) {
    const double x = x0 + col_w * static_cast<double>(k % per_row), yy = y + 14 * static_cast<double>(k / per_row);
    o << "<line x1=\"" << num(x) << "\" y1=\"" << num(yy) << "\" x2=\"" << num(x + 16) << "\" y2=\"" << num(yy)
      << "\" stroke=\"" << colour(k) << "\" stroke-width=\"2.5\"/><text x=\"" << num(x + 20) << "\" y=\""
      << num(yy + 3) << "\" font-size=\"9\">" << esc(names[k].substr(0, 24)) << "</text>\n";
  }
  double end = y + 14 * static_cast<double>((k + per_row - 1) / per_row);
  if (names.size() > shown) {
    o << "<text x=\"" << num(x0) << "\" y=\"" << num(end + 3) << "\" font-size=\"9\">+" << names.size() - shown
      << " more</text>\n";
    end += 14;
  }
  return end;
}

// The cumulative distribution of sorted values v (x = f(value) in [0, 1]).
template <typename T, typename F>
void cdf_line(std::ostringstream& o, Panel p, const std::vector<T>& v, const std::string& c, F fx) {
  if (v.empty()) return;
  const size_t n = v.size(), step = std::max<size_t>(1, (n + kMaxPoints - 1) / kMaxPoints);
  o << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"1.5\" points=\"" << num(p.x) << ","
    << num(p.y + kPanelH) << " ";
  for (size_t i = 0;; i += step) {
    const size_t k0 = std::min(i, n - 1);
    const size_t k = static_cast<size_t>(std::upper_bound(v.begin(), v.end(), v[k0]) - v.begin());
    o << num(p.x + kPanelW * std::clamp(fx(v[k0]), 0.0, 1.0)) << ","
      << num(p.y + kPanelH * (1 - static_cast<double>(k) / static_cast<double>(n))) << " ";
    if (k0 == n - 1) break;
  }
  o << num(p.x + kPanelW) << "," << num(p.y) << "\"/>\n";
}

// Section 1; returns the y below it.
double distributions(std::ostringstream& o, double y, const std::vector<PolicyResult>& ps) {
  double maxw = 1, maxb = 10;
  for (const PolicyResult& r : ps) {
    if (!r.waits.empty()) maxw = std::max(maxw, static_cast<double>(r.waits.back()));
    if (!r.bslds.empty()) maxb = std::max(maxb, r.bslds.back());
  }
  const double lw = std::log10(1 + maxw), lb = std::log10(maxb);
  const Panel a{kLeftX, y + 20}, b{kRightX, y + 20};
  frame(o, a, "waits, every policy", "wait (log scale)", "fraction of jobs");
  frame(o, b, "bounded slowdowns (10 s), every policy", "bounded slowdown (log scale)", "fraction of jobs");
  fraction_ticks(o, a);
  fraction_ticks(o, b);
  time_ticks(o, a, lw, true);
  for (double t = 1; t <= maxb * 1.0001; t *= 10) {
    char lab[16];
    std::snprintf(lab, sizeof lab, "%g", t);
    xtick(o, b.x + kPanelW * std::log10(t) / lb, b.y + kPanelH, lab);
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < ps.size(); ++i) {
    names.push_back(ps[i].name);
    cdf_line(o, a, ps[i].waits, colour(i), [&](int64_t w) { return std::log10(1 + static_cast<double>(w)) / lw; });
    cdf_line(o, b, ps[i].bslds, colour(i), [&](double s) { return std::log10(std::max(1.0, s)) / lb; });
  }
  return legend(o, a.y + kPanelH + 48, names, names.size(), kLeftX) + 10;
}

// Section 2: one panel, each policy's mean wait per name; returns the y below.
double per_name(std::ostringstream& o, double y, const std::vector<PolicyResult>& ps,
                const std::vector<GroupStats> PolicyResult::*member, const char* what) {
  const std::vector<GroupStats>& first = ps.front().*member;
  std::vector<size_t> idx(first.size());
  std::iota(idx.begin(), idx.end(), 0);
  stable_order(idx, [&](size_t a, size_t b) { return first[a].jobs > first[b].jobs; });
  if (idx.size() > kMaxNames) idx.resize(kMaxNames);
  double maxw = 60;
  for (const PolicyResult& r : ps)
    for (const GroupStats& g : r.*member) maxw = std::max(maxw, g.wait_mean);
  const double lw = std::log10(1 + maxw), w = kRightX + kPanelW - kLeftX;
  const Panel p{kLeftX, y + 20};
  o << "<rect x=\"" << num(p.x) << "\" y=\"" << num(p.y) << "\" width=\"" << num(w) << "\" height=\"" << num(kPanelH)
    << "\" fill=\"none\" stroke=\"#444\"/>\n";
  o << "<text x=\"" << num(p.x + w / 2) << "\" y=\"" << num(p.y - 8) << "\" text-anchor=\"middle\" font-size=\"12\">"
    << "mean wait per " << what << ", every policy (the " << idx.size() << " with the most jobs, most first)</text>\n";
  const double lx = p.x - 48, ly = p.y + kPanelH / 2;
  o << "<text x=\"" << num(lx) << "\" y=\"" << num(ly) << "\" font-size=\"11\" transform=\"rotate(-90 " << num(lx)
    << " " << num(ly) << ")\" text-anchor=\"middle\">mean wait (log scale)</text>\n";
  time_ticks(o, p, lw, false);
  const double slot = w / static_cast<double>(std::max<size_t>(1, idx.size()));
  for (size_t k = 0; k < idx.size(); ++k) {
    const double cx = p.x + slot * (static_cast<double>(k) + 0.5);
    for (size_t q = 0; q < ps.size(); ++q) {
      const double dx = (static_cast<double>(q) - static_cast<double>(ps.size() - 1) / 2) * std::min(6.0, slot / 4);
      const double f = std::log10(1 + (ps[q].*member)[idx[k]].wait_mean) / lw;
      o << "<circle cx=\"" << num(cx + dx) << "\" cy=\"" << num(p.y + kPanelH * (1 - f)) << "\" r=\"3\" fill=\""
        << colour(q) << "\"/>\n";
    }
    const double ty = p.y + kPanelH + 8;
    o << "<text x=\"" << num(cx) << "\" y=\"" << num(ty) << "\" font-size=\"9\" text-anchor=\"end\" transform=\"rotate(-60 "
      << num(cx) << " " << num(ty) << ")\">" << esc(first[idx[k]].name.substr(0, 14)) << "</text>\n";
  }
  return p.y + kPanelH + 80;
}

// Section 3, one policy; returns the y below it.
double policy_row(std::ostringstream& o, double y, const PolicyResult& r) {
  o << "<text x=\"20\" y=\"" << num(y + 14) << "\" font-size=\"13\" font-weight=\"bold\">" << esc(r.name) << " ("
    << esc(r.plugin_type) << ", target " << esc(r.target_rule) << ")</text>\n";
  const Panel a{kLeftX, y + 45}, b{kRightX, y + 45};
  const double span = std::max<double>(1.0, static_cast<double>(r.last_end - r.first_submit));
  const size_t ns = r.sample_t.size(), step = std::max<size_t>(1, (ns + kMaxPoints - 1) / kMaxPoints);
  auto series = [&](Panel p, const std::string& c, auto value) {
    if (!ns) return;
    o << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"1.5\" points=\"";
    for (size_t s = 0;; s += step) {  // every step-th sample, and the last
      const size_t k = std::min(s, ns - 1);
      const double x = p.x + kPanelW * std::clamp(static_cast<double>(r.sample_t[k] - r.first_submit) / span, 0.0, 1.0);
      o << num(x) << "," << num(p.y + kPanelH * (1 - std::clamp(value(k), 0.0, 1.0))) << " ";
      if (k == ns - 1) break;
    }
    o << "\"/>\n";
  };
  const bool shares = r.accounts.size() > 1;
  if (shares) {
    frame(o, a, "share of CPU time delivered so far (dashed: target)", "days since the first submit",
          "share of CPU time");
    fraction_ticks(o, a);
    for (int i = 0; i <= 4; ++i) xtick(o, a.x + kPanelW * i / 4.0, a.y + kPanelH, num(span * i / 4.0 / 86400.0));
    for (size_t k = 0; k < r.accounts.size(); ++k) {
      const double ty = a.y + kPanelH * (1 - std::clamp(r.accounts[k].target_share, 0.0, 1.0));
      o << "<line x1=\"" << num(a.x) << "\" y1=\"" << num(ty) << "\" x2=\"" << num(a.x + kPanelW) << "\" y2=\""
        << num(ty) << "\" stroke=\"" << colour(k) << "\" stroke-dasharray=\"5,4\"/>\n";
      series(a, colour(k), [&](size_t s) { return k < r.sample_share[s].size() ? r.sample_share[s][k] : 0.0; });
    }
  } else {
    o << "<text x=\"" << num(a.x) << "\" y=\"" << num(a.y + kPanelH / 2) << "\" font-size=\"11\">one account ("
      << esc(r.accounts.empty() ? std::string() : r.accounts[0].name) << "): no shares to compare</text>\n";
  }
  frame(o, b, "processors busy", "days since the first submit", "fraction busy");
  fraction_ticks(o, b);
  for (int i = 0; i <= 4; ++i) xtick(o, b.x + kPanelW * i / 4.0, b.y + kPanelH, num(span * i / 4.0 / 86400.0));
  if (r.sample_util.size() == ns) series(b, "#444444", [&](size_t s) { return r.sample_util[s]; });
  double end = a.y + kPanelH + 48;
  if (shares) {
    std::vector<std::string> names;
    for (const GroupStats& g : r.accounts) names.push_back(g.name);
    end = legend(o, end, names, kMaxLegend, kLeftX);
  }
  return end + 10;
}

}  // namespace

std::string sim_svg(const std::string& title, const std::vector<PolicyResult>& ps) {
  std::ostringstream body;
  double y = 40;
  if (!ps.empty()) {
    y = distributions(body, y, ps);
    y = per_name(body, y, ps, &PolicyResult::users, "user");
    if (ps.front().accounts.size() > 1) y = per_name(body, y, ps, &PolicyResult::accounts, "account");
    for (const PolicyResult& r : ps) y = policy_row(body, y, r);
  }
  const double height = y + 10;
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << num(kW) << "\" height=\"" << num(height)
    << "\" viewBox=\"0 0 " << num(kW) << " " << num(height) << "\" font-family=\"sans-serif\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << num(kW / 2) << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">" << esc(title) << "</text>\n"
    << body.str() << "</svg>\n";
  return o.str();
}

}  // namespace mfprio::host
