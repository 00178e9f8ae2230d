// sim_svg.cpp - see sim_svg.hpp.  Layout: 1000 px wide, 300 px per policy.
// Share panel: x = simulated days since the first submit, y = share 0..1
// (at most kMaxPoints points per line, evenly picked from the calc-period
// samples).  Wait panel: x = log10(1 + wait seconds), y = fraction of jobs.
// Colours cycle through a fixed palette; the legend names each account.
#include "sim_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace mfprio::host {
namespace {

constexpr double kW = 1000, kRowH = 300, kTop = 40;
constexpr double kPanelW = 400, kPanelH = 200;
constexpr size_t kMaxPoints = 400;
const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

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

const char* const kYTicks[] = {"0", "0.25", "0.5", "0.75", "1"};

void axes(std::ostringstream& o, double x, double y, const std::string& xlabel, const std::string& ylabel) {
  o << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(kPanelW) << "\" height=\"" << num(kPanelH)
    << "\" fill=\"none\" stroke=\"#444\"/>\n";
  o << "<text x=\"" << num(x + kPanelW / 2) << "\" y=\"" << num(y + kPanelH + 30)
    << "\" text-anchor=\"middle\" font-size=\"11\">" << esc(xlabel) << "</text>\n";
  o << "<text x=\"" << num(x - 35) << "\" y=\"" << num(y + kPanelH / 2) << "\" font-size=\"11\" transform=\"rotate(-90 "
    << num(x - 35) << " " << num(y + kPanelH / 2) << ")\" text-anchor=\"middle\">" << esc(ylabel) << "</text>\n";
  for (int i = 0; i <= 4; ++i) {  // y ticks 0, .25, .5, .75, 1
    const double yy = y + kPanelH - kPanelH * i / 4.0;
    o << "<line x1=\"" << num(x - 4) << "\" y1=\"" << num(yy) << "\" x2=\"" << num(x) << "\" y2=\"" << num(yy)
      << "\" stroke=\"#444\"/><text x=\"" << num(x - 6) << "\" y=\"" << num(yy + 4)
      << "\" font-size=\"9\" text-anchor=\"end\">" << kYTicks[i] << "</text>\n";
  }
}

void xtick(std::ostringstream& o, double x, double y, const std::string& label) {
  o << "<line x1=\"" << num(x) << "\" y1=\"" << num(y) << "\" x2=\"" << num(x) << "\" y2=\"" << num(y + 4)
    << "\" stroke=\"#444\"/><text x=\"" << num(x) << "\" y=\"" << num(y + 14) << "\" font-size=\"9\" text-anchor=\"middle\">"
    << esc(label) << "</text>\n";
}

}  // namespace

std::string sim_svg(const std::string& title, const std::vector<PolicyResult>& ps) {
  std::ostringstream o;
  const double height = kTop + kRowH * static_cast<double>(ps.size()) + 10;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << num(kW) << "\" height=\"" << num(height)
    << "\" viewBox=\"0 0 " << num(kW) << " " << num(height) << "\" font-family=\"sans-serif\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << num(kW / 2) << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">" << esc(title) << "</text>\n";
  for (size_t p = 0; p < ps.size(); ++p) {
    const PolicyResult& r = ps[p];
    const double row = kTop + kRowH * static_cast<double>(p);
    const double lx = 70, ly = row + 30, rx = 560, ry = ly;
    o << "<text x=\"20\" y=\"" << num(row + 18) << "\" font-size=\"13\" font-weight=\"bold\">" << esc(r.name) << " ("
      << esc(r.plugin_type) << ", target " << esc(r.target_rule) << ")</text>\n";
    // Left: delivered share per account over time, target dashed.
    axes(o, lx, ly, "days since the first submit", "share of CPU time");
    const double span = std::max<double>(1.0, static_cast<double>(r.last_end - r.first_submit));
    for (int i = 0; i <= 4; ++i)
      xtick(o, lx + kPanelW * i / 4.0, ly + kPanelH, num(span * i / 4.0 / 86400.0));
    const size_t ns = r.sample_t.size();
    const size_t step = std::max<size_t>(1, (ns + kMaxPoints - 1) / kMaxPoints);
    for (size_t a = 0; a < r.accounts.size(); ++a) {
      const char* colour = kPalette[a % (sizeof kPalette / sizeof kPalette[0])];
      const double ty = ly + kPanelH * (1 - std::clamp(r.accounts[a].target_share, 0.0, 1.0));
      o << "<line x1=\"" << num(lx) << "\" y1=\"" << num(ty) << "\" x2=\"" << num(lx + kPanelW) << "\" y2=\"" << num(ty)
        << "\" stroke=\"" << colour << "\" stroke-dasharray=\"5,4\"/>\n";
      if (ns) {
        o << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\" points=\"";
        for (size_t s = 0;; s += step) {  // every step-th sample, and the last
          const size_t k = std::min(s, ns - 1);
          const double x = lx + kPanelW * std::clamp(static_cast<double>(r.sample_t[k] - r.first_submit) / span, 0.0, 1.0);
          const double y = ly + kPanelH * (1 - std::clamp(r.sample_share[k][a], 0.0, 1.0));
          o << num(x) << "," << num(y) << " ";
          if (k == ns - 1) break;
        }
        o << "\"/>\n";
      }
      if (a < 12) {  // legend, beside the panel
        const double legy = ly + 10 + 14 * static_cast<double>(a);
        o << "<line x1=\"" << num(lx + kPanelW + 8) << "\" y1=\"" << num(legy) << "\" x2=\"" << num(lx + kPanelW + 22)
          << "\" y2=\"" << num(legy) << "\" stroke=\"" << colour << "\" stroke-width=\"2\"/><text x=\""
          << num(lx + kPanelW + 25) << "\" y=\"" << num(legy + 3) << "\" font-size=\"9\">" << esc(r.accounts[a].name)
          << "</text>\n";
      } else if (a == 12) {
        o << "<text x=\"" << num(lx + kPanelW + 8) << "\" y=\"" << num(ly + 10 + 14 * 12.0) << "\" font-size=\"9\">+"
          << r.accounts.size() - 12 << " more</text>\n";
      }
    }
    // Right: the CDF of waits on a log axis: x = log10(1 + wait).
    axes(o, rx, ry, "wait (log scale)", "fraction of jobs");
    const double maxw = r.waits.empty() ? 1.0 : std::max<double>(1.0, static_cast<double>(r.waits.back()));
    const double lmax = std::log10(1 + maxw);
    const char* const tick_label[] = {"0", "1m", "1h", "1d", "10d", "100d"};
    const double tick_s[] = {0, 60, 3600, 86400, 864000, 8640000};
    for (int i = 0; i < 6; ++i)
      if (std::log10(1 + tick_s[i]) <= lmax * 1.0001)
        xtick(o, rx + kPanelW * std::log10(1 + tick_s[i]) / lmax, ry + kPanelH, tick_label[i]);
    const size_t nw = r.waits.size();
    if (nw) {
      o << "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"";
      const size_t wstep = std::max<size_t>(1, (nw + kMaxPoints - 1) / kMaxPoints);
      o << num(rx) << "," << num(ry + kPanelH) << " ";
      for (size_t i = 0; i < nw; i += wstep) {
        // the fraction of jobs that waited at most waits[i]
        const size_t k = static_cast<size_t>(std::upper_bound(r.waits.begin(), r.waits.end(), r.waits[i]) - r.waits.begin());
        const double x = rx + kPanelW * std::log10(1 + static_cast<double>(r.waits[i])) / lmax;
        const double y = ry + kPanelH * (1 - static_cast<double>(k) / static_cast<double>(nw));
        o << num(x) << "," << num(y) << " ";
      }
      o << num(rx + kPanelW) << "," << num(ry) << "\"/>\n";
    }
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace mfprio::host
